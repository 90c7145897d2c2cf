package dialogs

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func testQuestion(sandbox string) Question {
	return Question{
		Sandbox: Sandbox{ID: sandbox, Name: "agent", Command: []string{"claude"}, Folder: "/work/p", Scope: "spec\x00/work/p"},
		Bridge:  "test", Action: "wants to do a thing", Subject: "https://example.test/x",
		Remember: "test thing",
	}
}

// recorder keeps the asker's events.
type recorder struct {
	mu sync.Mutex
	ev []Event
}

func (r *recorder) record(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ev = append(r.ev, e)
}

func (r *recorder) answers() []Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Answer
	for _, e := range r.ev {
		if e.Answer != nil {
			out = append(out, *e.Answer)
		}
	}
	return out
}

func newTestAsker(t *testing.T, cfg Config) (*Asker, *recorder) {
	t.Helper()
	rec := &recorder{}
	cfg.Record = rec.record
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a, rec
}

func TestDialogChoices(t *testing.T) {
	for _, c := range []Choice{AllowOnce, AllowAlways, Deny} {
		t.Run(string(c), func(t *testing.T) {
			fake := NewFake(c)
			a, rec := newTestAsker(t, Config{Dialog: fake})
			ans := a.Ask(context.Background(), testQuestion("sb1"))
			if ans.Choice != c || ans.Via != ViaDialog {
				t.Fatalf("answer = %+v, want %s by dialog", ans, c)
			}
			if got := len(rec.ev); got != 2 {
				t.Fatalf("recorded %d events, want the question and its answer", got)
			}
			if len(fake.Shown()) != 1 {
				t.Fatalf("dialog shown %d times", len(fake.Shown()))
			}
		})
	}
}

func TestAlwaysIsRememberedPerScope(t *testing.T) {
	file := filepath.Join(t.TempDir(), "remembered.json")
	fake := NewFake(AllowAlways)
	a, _ := newTestAsker(t, Config{Dialog: fake, RememberFile: file})
	if ans := a.Ask(context.Background(), testQuestion("sb1")); ans.Choice != AllowAlways {
		t.Fatalf("first answer %+v", ans)
	}
	// Another run of the same spec and folder: remembered, not shown.
	if ans := a.Ask(context.Background(), testQuestion("sb2")); ans.Via != ViaRemembered || !ans.Allowed() {
		t.Fatalf("second answer %+v, want remembered", ans)
	}
	// Another scope asks afresh (and the fake, out of script, denies).
	q := testQuestion("sb3")
	q.Sandbox.Scope = "other\x00/work/p"
	if ans := a.Ask(context.Background(), q); ans.Allowed() {
		t.Fatalf("other scope: %+v, want a fresh question denied", ans)
	}
	// The file survives a restart; forgetting revokes it.
	b, _ := newTestAsker(t, Config{Dialog: NewFake(), RememberFile: file})
	if got := b.Remembered(); len(got) != 1 || got[0].Key != "test thing" {
		t.Fatalf("remembered after restart: %+v", got)
	}
	if n, err := b.Forget("", "test thing"); n != 1 || err != nil {
		t.Fatalf("forget = %d, %v", n, err)
	}
	if ans := b.Ask(context.Background(), testQuestion("sb4")); ans.Allowed() {
		t.Fatalf("after forget: %+v, want asked and denied", ans)
	}
}

func TestAlwaysNotOfferedMeansOnce(t *testing.T) {
	a, _ := newTestAsker(t, Config{Dialog: NewFake(AllowAlways, Deny)})
	q := testQuestion("sb1")
	q.Remember = ""
	if ans := a.Ask(context.Background(), q); ans.Choice != AllowOnce {
		t.Fatalf("answer %+v, want once", ans)
	}
	if len(a.Remembered()) != 0 {
		t.Fatal("an always that was not offered was remembered")
	}
}

func TestTimeoutDenies(t *testing.T) {
	a, rec := newTestAsker(t, Config{Dialog: &Fake{Unavailable: errors.New("no screen")}, Timeout: 50 * time.Millisecond})
	ans := a.Ask(context.Background(), testQuestion("sb1"))
	if ans.Choice != Deny || ans.Via != ViaTimeout || !strings.Contains(ans.Reason, "silence is no") {
		t.Fatalf("answer %+v, want a timeout deny", ans)
	}
	if len(rec.answers()) != 1 || len(a.Pending()) != 0 {
		t.Fatal("a timed-out question was not recorded or is still pending")
	}
}

func TestUnattendedRefusedAtOnce(t *testing.T) {
	a, _ := newTestAsker(t, Config{Dialog: &Fake{Unavailable: errors.New("no display")}, Timeout: time.Hour})
	q := testQuestion("sb1")
	q.Unattended = true
	q.Hint = "allow it with `lnk sandbox tool add fs --allow x`"
	start := time.Now()
	ans := a.Ask(context.Background(), q)
	if ans.Choice != Deny || ans.Via != ViaRefused || time.Since(start) > time.Second {
		t.Fatalf("answer %+v after %v, want an immediate refusal", ans, time.Since(start))
	}
	for _, want := range []string{"no display", "--allow x", "lnk sandbox answer --watch"} {
		if !strings.Contains(ans.Reason, want) {
			t.Errorf("reason %q does not say %q", ans.Reason, want)
		}
	}
	// With a watcher on the queue, the same question waits and is answered.
	w := a.Watch()
	defer w.Close()
	go func() {
		for e := range w.Events() {
			if e.Question != nil {
				a.Answer(e.Question.ID, AllowOnce, ViaQueue, "")
			}
		}
	}()
	if ans := a.Ask(context.Background(), q); ans.Choice != AllowOnce || ans.Via != ViaQueue {
		t.Fatalf("watched: %+v, want allowed on the queue", ans)
	}
}

func TestQueueAnswerWinsOverDialog(t *testing.T) {
	block := &blockingDialog{shown: make(chan struct{})}
	a, _ := newTestAsker(t, Config{Dialog: block})
	done := make(chan Answer)
	go func() { done <- a.Ask(context.Background(), testQuestion("sb1")) }()
	<-block.shown
	p := a.Pending()
	if len(p) != 1 {
		t.Fatalf("pending %d", len(p))
	}
	if err := a.Answer(p[0].ID, Deny, ViaQueue, ""); err != nil {
		t.Fatal(err)
	}
	if ans := <-done; ans.Choice != Deny || ans.Via != ViaQueue {
		t.Fatalf("answer %+v", ans)
	}
	if !block.closed() {
		t.Fatal("the dialog was not closed when the queue answered")
	}
	if err := a.Answer(p[0].ID, AllowOnce, ViaQueue, ""); !errors.Is(err, ErrNoQuestion) {
		t.Fatalf("second answer: %v, want ErrNoQuestion", err)
	}
}

// blockingDialog shows until its context ends.
type blockingDialog struct {
	shown chan struct{}
	mu    sync.Mutex
	done  bool
}

func (b *blockingDialog) Available() error { return nil }
func (b *blockingDialog) Show(ctx context.Context, q *Question) (Choice, error) {
	close(b.shown)
	<-ctx.Done()
	b.mu.Lock()
	b.done = true
	b.mu.Unlock()
	return Deny, ctx.Err()
}
func (b *blockingDialog) closed() bool {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		d := b.done
		b.mu.Unlock()
		if d {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

func TestTerminalNeedsTheCode(t *testing.T) {
	a, _ := newTestAsker(t, Config{Dialog: &Fake{Unavailable: errors.New("no display")}})
	term := a.AttachTerminal("sb1")
	defer term.Close()
	done := make(chan Answer)
	go func() { done <- a.Ask(context.Background(), testQuestion("sb1")) }()
	e := <-term.Events()
	if e.Question == nil || len(e.Question.Code) != 5 || e.Question.Via != ViaTerminal {
		t.Fatalf("terminal event %+v, want a question with a code", e)
	}
	for _, v := range a.PendingViews() {
		if v.Code != "" {
			t.Fatal("the queue's view carries the terminal code")
		}
	}
	if err := a.Answer(e.Question.ID, AllowOnce, ViaTerminal, "WRONG"); !errors.Is(err, ErrBadCode) {
		t.Fatalf("wrong code: %v", err)
	}
	if err := a.Answer(e.Question.ID, AllowOnce, ViaTerminal, e.Question.Code); err != nil {
		t.Fatal(err)
	}
	if ans := <-done; ans.Choice != AllowOnce || ans.Via != ViaTerminal {
		t.Fatalf("answer %+v", ans)
	}
}

func TestDialogFailureFallsBackToTerminal(t *testing.T) {
	a, _ := newTestAsker(t, Config{Dialog: &Fake{Fail: errors.New("zenity crashed")}})
	term := a.AttachTerminal("sb1")
	defer term.Close()
	done := make(chan Answer)
	go func() { done <- a.Ask(context.Background(), testQuestion("sb1")) }()
	e := <-term.Events()
	if e.Question == nil {
		t.Fatalf("event %+v", e)
	}
	a.Answer(e.Question.ID, Deny, ViaTerminal, e.Question.Code)
	if ans := <-done; ans.Via != ViaTerminal || ans.Choice != Deny {
		t.Fatalf("answer %+v", ans)
	}
}

func TestFloodIsRefused(t *testing.T) {
	a, rec := newTestAsker(t, Config{Dialog: &Fake{Unavailable: errors.New("none")}, MaxPending: 3, MaxPerMinute: 100, Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	results := make(chan Answer, 10)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- a.Ask(ctx, testQuestion("flood"))
		}()
	}
	// Wait until the bound is reached and the rest are refused.
	deadline := time.Now().Add(3 * time.Second)
	for len(rec.answers()) < 7 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := len(a.Pending()); got != 3 {
		t.Fatalf("%d pending, want the bound 3", got)
	}
	// Another sandbox is not held back by the flood.
	other := make(chan Answer)
	go func() { other <- a.Ask(ctx, testQuestion("calm")) }()
	for len(a.Pending()) < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	close(results)
	refused := 0
	for r := range results {
		if r.Allowed() {
			t.Fatalf("a flood question was allowed: %+v", r)
		}
		if r.Via == ViaRefused && strings.Contains(r.Reason, "too many questions") {
			refused++
		}
	}
	if refused != 7 {
		t.Fatalf("%d refused, want 7", refused)
	}
	if r := <-other; r.Via != ViaCancelled {
		t.Fatalf("the other sandbox's question: %+v, want it asked (then cancelled)", r)
	}
}

func TestRateLimitPerMinute(t *testing.T) {
	a, _ := newTestAsker(t, Config{Dialog: NewFake(Deny, Deny, Deny, Deny), MaxPerMinute: 2})
	var vias []string
	for i := 0; i < 3; i++ {
		vias = append(vias, a.Ask(context.Background(), testQuestion("sb1")).Via)
	}
	if vias[0] != ViaDialog || vias[1] != ViaDialog || vias[2] != ViaRefused {
		t.Fatalf("vias %v, want dialog, dialog, refused", vias)
	}
}

func TestOneDialogAtATime(t *testing.T) {
	d := &countingDialog{}
	a, _ := newTestAsker(t, Config{Dialog: d})
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			a.Ask(context.Background(), testQuestion("sb"+string(rune('a'+i))))
		}(i)
	}
	wg.Wait()
	if d.max != 1 || d.n != 5 {
		t.Fatalf("dialogs shown %d, at most %d at once; want 5, 1", d.n, d.max)
	}
}

type countingDialog struct {
	mu          sync.Mutex
	now, max, n int
}

func (c *countingDialog) Available() error { return nil }
func (c *countingDialog) Show(ctx context.Context, q *Question) (Choice, error) {
	c.mu.Lock()
	c.now++
	c.n++
	c.max = max(c.max, c.now)
	c.mu.Unlock()
	time.Sleep(10 * time.Millisecond)
	c.mu.Lock()
	c.now--
	c.mu.Unlock()
	return AllowOnce, nil
}
