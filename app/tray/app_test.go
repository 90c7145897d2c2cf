package tray

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/dialogs"
)

// fakeModel is a daemon as the tray sees it.
type fakeModel struct {
	asker *dialogs.Asker

	mu    sync.Mutex
	sbs   []apitype.Sandbox
	subs  []func(apitype.Event)
	calls []string
}

func (f *fakeModel) List(context.Context) []apitype.Sandbox {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apitype.Sandbox(nil), f.sbs...)
}

func (f *fakeModel) Subscribe(fn func(apitype.Event)) func() {
	f.mu.Lock()
	f.subs = append(f.subs, fn)
	f.mu.Unlock()
	return func() {}
}

func (f *fakeModel) publish(e apitype.Event) {
	f.mu.Lock()
	subs := append([](func(apitype.Event)){}, f.subs...)
	f.mu.Unlock()
	for _, fn := range subs {
		fn(e)
	}
}

func (f *fakeModel) call(s string) error {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
	return nil
}

func (f *fakeModel) Stop(_ context.Context, r *apitype.IDRequest) ([]string, error) {
	return nil, f.call("stop " + r.ID)
}
func (f *fakeModel) Pause(_ context.Context, id string) error  { return f.call("pause " + id) }
func (f *fakeModel) Resume(_ context.Context, id string) error { return f.call("resume " + id) }
func (f *fakeModel) Asker() *dialogs.Asker                     { return f.asker }

func (f *fakeModel) Log(_ context.Context, sandbox string, _ bool, fn func(*apitype.LogRecord) error) error {
	for _, r := range []apitype.LogRecord{
		{Sandbox: "a", Host: "x.example", Port: 443, Decision: "deny", Rule: "not allowed"},
		{Sandbox: "b", Host: "y.example", Port: 80, Decision: "allow", Rule: "hosts"},
	} {
		if sandbox == "" || r.Sandbox == sandbox {
			if err := fn(&r); err != nil {
				return err
			}
		}
	}
	return nil
}

func newFake(t *testing.T) *fakeModel {
	a, err := dialogs.New(dialogs.Config{Timeout: 5 * time.Second, MaxPerMinute: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return &fakeModel{asker: a, sbs: []apitype.Sandbox{
		{ID: "a", Name: "alpha", State: apitype.StateRunning, Started: time.Now()},
		{ID: "b", Name: "beta", State: apitype.StatePaused, Started: time.Now()},
	}}
}

// follow renders a view at once and after every change, notifies what
// the changes call for, and watches the questions (which then wait on
// the queue instead of being refused).
func TestFollow(t *testing.T) {
	m := newFake(t)
	var s sent
	views := make(chan view, 16)
	a := newApp(m, Options{Notify: s.send}, func() {})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go a.follow(ctx, func(v view) { views <- v })
	next := func() view {
		select {
		case v := <-views:
			return v
		case <-time.After(5 * time.Second):
			t.Fatal("no view rendered")
		}
		return view{}
	}
	if v := next(); v.Tooltip != "lnk sandbox: 1 running, 1 paused" {
		t.Fatalf("first view %q", v.Tooltip)
	}
	m.mu.Lock()
	m.sbs[0].LastBlocked = "x.example:443"
	m.mu.Unlock()
	m.publish(apitype.Event{Kind: apitype.EventBlocked, Sandbox: m.sbs[0], Host: "x.example:443"})
	if v := next(); !strings.Contains(strings.Join(v.Sandboxes[0].Info, "|"), "last blocked: x.example:443") {
		t.Errorf("view after a block: %+v", v.Sandboxes[0])
	}
	answer := make(chan dialogs.Answer, 1)
	go func() {
		// Refused at once until the tray's watcher is attached (it is
		// attached by follow's own goroutine); then it waits.
		for i := 0; ; i++ {
			ans := m.asker.Ask(ctx, dialogs.Question{Sandbox: dialogs.Sandbox{ID: "a", Name: "alpha"}, Bridge: "ask",
				Action: "asks", Subject: "ok?", Unattended: true})
			if ans.Via != dialogs.ViaRefused || i == 200 {
				answer <- ans
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	var v view
	for v = next(); len(v.Questions) == 0; v = next() {
	}
	if v.Tooltip != "lnk sandbox: 1 running, 1 paused, 1 question" {
		t.Errorf("tooltip with a question: %q", v.Tooltip)
	}
	if err := m.asker.Answer(v.Questions[0].ID, dialogs.Deny, dialogs.ViaQueue, ""); err != nil {
		t.Fatal(err)
	}
	if ans := <-answer; ans.Via != dialogs.ViaQueue {
		t.Errorf("an unattended question with the tray watching was %+v, want it to wait on the queue", ans)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	got := strings.Join(s.got, "\n")
	if !strings.Contains(got, "connection blocked") || !strings.Contains(got, "a question waits") {
		t.Errorf("notifications:\n%s", got)
	}
}

func TestActions(t *testing.T) {
	m := newFake(t)
	var s sent
	var opened []string
	asked := 0
	dir := t.TempDir()
	a := newApp(m, Options{
		Notify: s.send, Paths: apitype.Paths{Runtime: dir, State: dir}, SettingsDir: filepath.Join(dir, "settings"),
		Open:    func(p string) error { opened = append(opened, p); return nil },
		Confirm: func(title, text, yes, no string) bool { asked++; return strings.Contains(text, "alpha") },
	}, func() { m.call("quit") })
	a.last = makeView(m.List(context.Background()), nil, time.Now())
	a.stop("a")
	a.pause("a", true)
	a.pauseAll(true)
	a.pauseAll(false)
	a.showLog("a")
	a.openSettings()
	a.tryQuit()
	if strings.Join(m.calls, ",") != "stop a,pause a,pause a,resume b,quit" || asked != 1 {
		t.Errorf("calls %q, asked %d", m.calls, asked)
	}
	if len(opened) != 2 || opened[1] != filepath.Join(dir, "settings") {
		t.Fatalf("opened %q", opened)
	}
	text, _ := os.ReadFile(opened[0])
	if !strings.Contains(string(text), "x.example:443") || strings.Contains(string(text), "y.example") {
		t.Errorf("sandbox a's log view:\n%s", text)
	}
	if fi, err := os.Stat(opened[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("log view mode: %v %v", fi, err)
	}
	// Nothing runs: Quit does not ask.
	a.last = makeView(nil, nil, time.Now())
	a.tryQuit()
	if asked != 1 || len(m.calls) != 6 {
		t.Errorf("quit with nothing running: asked %d, calls %q", asked, m.calls)
	}
}
