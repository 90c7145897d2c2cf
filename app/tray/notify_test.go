package tray

import (
	"strings"
	"sync"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/dialogs"
)

type sent struct {
	mu  sync.Mutex
	got []string
}

func (s *sent) send(title, body string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, title+" | "+body)
	return nil
}

func TestNotifierRateLimitsBlocked(t *testing.T) {
	var s sent
	n := newNotifier(s.send, time.Minute, nil)
	now := time.Now()
	a := apitype.Sandbox{ID: "a", Name: "alpha"}
	b := apitype.Sandbox{ID: "b", Name: "beta"}
	for i := 0; i < 10; i++ { // a retry loop
		n.event(apitype.Event{Kind: apitype.EventBlocked, Sandbox: a, Host: "x.example:443"}, now.Add(time.Duration(i)*time.Second))
	}
	n.event(apitype.Event{Kind: apitype.EventBlocked, Sandbox: a, Host: "y.example:443"}, now)
	n.event(apitype.Event{Kind: apitype.EventBlocked, Sandbox: b, Host: "x.example:443"}, now)
	n.event(apitype.Event{Kind: apitype.EventBlocked, Sandbox: a, Host: "x.example:443"}, now.Add(time.Minute))
	if len(s.got) != 4 {
		t.Fatalf("sent %d, want 4 (one per sandbox and host, again after a minute):\n%s", len(s.got), strings.Join(s.got, "\n"))
	}
	if !strings.Contains(s.got[0], "alpha (a) may not reach x.example:443") {
		t.Errorf("first: %q", s.got[0])
	}
}

func TestNotifierEnds(t *testing.T) {
	var s sent
	n := newNotifier(s.send, 0, nil)
	zero, one := 0, 3
	now := time.Now()
	for _, e := range []apitype.Event{
		{Kind: apitype.EventChanged, Sandbox: apitype.Sandbox{ID: "r", Name: "r", State: apitype.StateRunning}},
		{Kind: apitype.EventChanged, Sandbox: apitype.Sandbox{ID: "ok", Name: "ok", State: apitype.StateExited, ExitCode: &zero}},
		{Kind: apitype.EventChanged, Sandbox: apitype.Sandbox{ID: "bad", Name: "bad", State: apitype.StateExited, ExitCode: &one}},
		{Kind: apitype.EventChanged, Sandbox: apitype.Sandbox{ID: "bad", Name: "bad", State: apitype.StateExited, ExitCode: &one}},
		{Kind: apitype.EventChanged, Sandbox: apitype.Sandbox{ID: "st", Name: "st", State: apitype.StateStopped}},
		{Kind: apitype.EventChanged, Sandbox: apitype.Sandbox{ID: "st", Name: "st", State: apitype.StateStopped}},
	} {
		n.event(e, now)
	}
	want := []string{"lnk sandbox: bad ended | bad (bad) exited with code 3.",
		"lnk sandbox: st ended | st (st) was stopped: its network was cut and its processes ended."}
	if strings.Join(s.got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent:\n%s", strings.Join(s.got, "\n"))
	}
}

func TestNotifierQuestions(t *testing.T) {
	var s sent
	n := newNotifier(s.send, 0, nil)
	q := func(id, via string) *dialogs.Pending {
		return &dialogs.Pending{Question: dialogs.Question{ID: id, Sandbox: dialogs.Sandbox{ID: "a", Name: "alpha"},
			Action: "wants to open a page", Subject: "https://x.example/?token=SECRET"}, Via: via}
	}
	n.question(q("q1", dialogs.ViaDialog))   // on the screen already
	n.question(q("q2", dialogs.ViaTerminal)) // on its terminal
	n.question(q("q3", dialogs.ViaQueue))
	n.question(q("q3", dialogs.ViaQueue)) // seen again after a re-watch
	if len(s.got) != 1 || !strings.Contains(s.got[0], "alpha: wants to open a page: https://x.example/?...") {
		t.Fatalf("sent %q", s.got)
	}
	if strings.Contains(s.got[0], "SECRET") {
		t.Errorf("a notification shows a query: %q", s.got[0])
	}
}
