package dialogs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Defaults of a [Config].
const (
	DefaultTimeout    = 2 * time.Minute
	DefaultMaxPending = 8  // questions of one sandbox waiting at once
	DefaultMaxPerMin  = 30 // questions of one sandbox per minute
)

// Dialog is a channel that shows a question on the person's screen.
type Dialog interface {
	// Available says why no dialog can be shown now, or nil if one can.
	Available() error
	// Show shows q until the person answers or ctx ends (which closes
	// the dialog). Closing the dialog is Deny. An error means the dialog
	// could not be shown, and the question goes to the next channel.
	Show(ctx context.Context, q *Question) (Choice, error)
}

// Event is one line of the asker's account: a question asked, or its
// answer.
type Event struct {
	Question *Question
	// Answer is nil when the question was just asked.
	Answer *Answer
	// Duration is how long the answer took.
	Duration time.Duration
}

// Config sets up an [Asker]. Zero fields take the defaults.
type Config struct {
	// Dialog shows questions on the screen; nil means never.
	Dialog Dialog
	// Timeout is how long a question waits for an answer before it is
	// Deny (DefaultTimeout). Tests shorten it.
	Timeout time.Duration
	// MaxPending and MaxPerMinute bound each sandbox's questions; more are
	// refused at once.
	MaxPending   int
	MaxPerMinute int
	// RememberFile keeps "always" answers (JSON, 0600); "" keeps them in
	// memory only.
	RememberFile string
	// Record receives every question and answer, for the log.
	Record func(Event)
	// Changed is called (without locks held) whenever the pending
	// questions change, for views such as the tray.
	Changed func()
}

// Asker asks the person. It is the one way every bridge asks: by dialog
// when a screen is there, else on the terminal of the `lnk sandbox run`
// that started the sandbox, else on the queue that `lnk sandbox answer`
// and the tray show. Silence is never yes.
type Asker struct {
	cfg      Config
	remember *rememberStore
	dialog   chan struct{} // one dialog on the screen at a time

	mu        sync.Mutex // guards the fields below
	pending   map[string]*pending
	sandboxes map[string]*sandboxState
	terminals map[string]map[*Terminal]struct{} // by sandbox id
	watchers  map[*Watcher]struct{}
}

type sandboxState struct {
	pending int
	recent  []time.Time // when questions were asked within the last minute
}

type pending struct {
	q    Question
	code string      // the terminal code
	done chan Answer // buffered 1; the first answer wins
	once sync.Once
	via  string // the channel it is shown on: dialog, terminal or queue
}

func (p *pending) answer(a Answer) bool {
	ok := false
	p.once.Do(func() { p.done <- a; ok = true })
	return ok
}

// New returns an Asker.
func New(cfg Config) (*Asker, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = DefaultMaxPending
	}
	if cfg.MaxPerMinute <= 0 {
		cfg.MaxPerMinute = DefaultMaxPerMin
	}
	rs, err := openRemember(cfg.RememberFile)
	if err != nil {
		return nil, err
	}
	return &Asker{
		cfg:       cfg,
		remember:  rs,
		dialog:    make(chan struct{}, 1),
		pending:   map[string]*pending{},
		sandboxes: map[string]*sandboxState{},
		terminals: map[string]map[*Terminal]struct{}{},
		watchers:  map[*Watcher]struct{}{},
	}, nil
}

// Timeout is how long a question waits for its answer.
func (a *Asker) Timeout() time.Duration { return a.cfg.Timeout }

// ErrNoQuestion is returned by Answer for an id that is not waiting.
var ErrNoQuestion = errors.New("no such question is waiting (answered already, timed out, or never asked): list them with `lnk sandbox answer`")

// ErrBadCode is returned by Answer for a terminal answer without the
// question's code.
var ErrBadCode = errors.New("the code does not match the question's: type the code shown with the question")

// Ask asks the person q and waits for the answer, the timeout, or ctx's
// end (all but the first are Deny). It never returns an allow that the
// person did not give, now or earlier with "always".
func (a *Asker) Ask(ctx context.Context, q Question) Answer {
	q.Asked = time.Now()
	q.ID = "q" + randomHex(4)
	if q.OffersAlways() && a.remember.has(q.Sandbox.Scope, q.Remember) {
		ans := Answer{Choice: AllowAlways, Via: ViaRemembered}
		a.record(&q, nil, 0)
		a.record(&q, &ans, 0)
		return ans
	}
	a.record(&q, nil, 0)
	if reason := a.admit(&q); reason != "" {
		return a.finish(&q, Answer{Choice: Deny, Via: ViaRefused, Reason: reason})
	}
	p := &pending{q: q, done: make(chan Answer, 1), code: newCode()}
	defer a.settle(p)

	showCtx, cancelShow := context.WithCancel(ctx)
	defer cancelShow()
	dialogErr := errors.New("no dialog is set up")
	if a.cfg.Dialog != nil {
		dialogErr = a.cfg.Dialog.Available()
	}
	a.mu.Lock()
	hasTerm := len(a.terminals[q.Sandbox.ID]) > 0
	watched := len(a.watchers) > 0
	a.mu.Unlock()
	switch {
	case dialogErr == nil:
		p.via = ViaDialog
		a.add(p)
		go a.showDialog(showCtx, p)
	case hasTerm:
		p.via = ViaTerminal
		a.add(p)
	case watched || !q.Unattended:
		p.via = ViaQueue
		a.add(p)
	default:
		reason := fmt.Sprintf("nobody can be asked: no dialog (%v), no terminal of `lnk sandbox run` for this sandbox, and nobody watches the queue", dialogErr)
		if q.Hint != "" {
			reason += "; " + q.Hint
		}
		reason += "; or run it where a display is, or keep `lnk sandbox answer --watch` or the tray open"
		a.release(&q)
		return a.finish(&q, Answer{Choice: Deny, Via: ViaRefused, Reason: reason})
	}
	timer := time.NewTimer(a.cfg.Timeout)
	defer timer.Stop()
	select {
	case ans := <-p.done:
		return a.finish(&q, ans)
	case <-timer.C:
		if p.answer(Answer{Choice: Deny, Via: ViaTimeout, Reason: fmt.Sprintf("no answer within %v: silence is no", a.cfg.Timeout)}) {
			return a.finish(&q, <-p.done)
		}
	case <-ctx.Done():
		if p.answer(Answer{Choice: Deny, Via: ViaCancelled, Reason: "the request went away before an answer"}) {
			return a.finish(&q, <-p.done)
		}
	}
	return a.finish(&q, <-p.done) // an answer won the race
}

// finish records and remembers ans.
func (a *Asker) finish(q *Question, ans Answer) Answer {
	if ans.Choice == AllowAlways {
		if !q.OffersAlways() {
			ans.Choice = AllowOnce // "always" was not offered: it means once
		} else if err := a.remember.add(q.Sandbox.Scope, q.Remember); err != nil {
			ans.Reason = "allowed, but could not be remembered: " + err.Error()
		}
	}
	a.record(q, &ans, time.Since(q.Asked))
	return ans
}

func (a *Asker) record(q *Question, ans *Answer, d time.Duration) {
	if a.cfg.Record != nil {
		a.cfg.Record(Event{Question: q, Answer: ans, Duration: d})
	}
}

// admit applies the sandbox's bounds; it returns why q is refused, or "".
func (a *Asker) admit(q *Question) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := a.sandboxes[q.Sandbox.ID]
	if st == nil {
		st = &sandboxState{}
		a.sandboxes[q.Sandbox.ID] = st
	}
	cut := q.Asked.Add(-time.Minute)
	keep := st.recent[:0]
	for _, t := range st.recent {
		if t.After(cut) {
			keep = append(keep, t)
		}
	}
	st.recent = keep
	switch {
	case st.pending >= a.cfg.MaxPending:
		return fmt.Sprintf("too many questions: this sandbox already has %d waiting; answer them first", st.pending)
	case len(st.recent) >= a.cfg.MaxPerMinute:
		return fmt.Sprintf("too many questions: this sandbox asked %d times within a minute; wait and ask again", len(st.recent))
	}
	st.pending++
	st.recent = append(st.recent, q.Asked)
	return ""
}

// release undoes admit's count of a pending question.
func (a *Asker) release(q *Question) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if st := a.sandboxes[q.Sandbox.ID]; st != nil {
		st.pending--
		if st.pending == 0 && len(st.recent) == 0 {
			delete(a.sandboxes, q.Sandbox.ID)
		}
	}
}

// add makes p visible to the queue, the terminals and the watchers.
func (a *Asker) add(p *pending) {
	a.mu.Lock()
	a.pending[p.q.ID] = p
	var out []delivery
	for w := range a.watchers {
		out = append(out, delivery{w, QueueEvent{Question: pendingView(p, w)}})
	}
	if p.via == ViaTerminal {
		for t := range a.terminals[p.q.Sandbox.ID] {
			out = append(out, delivery{t, QueueEvent{Question: pendingView(p, t)}})
		}
	}
	a.mu.Unlock()
	deliver(out)
	a.changed()
}

// settle removes p once it has its answer.
func (a *Asker) settle(p *pending) {
	a.mu.Lock()
	_, ok := a.pending[p.q.ID]
	delete(a.pending, p.q.ID)
	var targets []eventSink
	for w := range a.watchers {
		targets = append(targets, w)
	}
	for t := range a.terminals[p.q.Sandbox.ID] {
		targets = append(targets, t)
	}
	a.mu.Unlock()
	if !ok {
		return
	}
	a.release(&p.q)
	for _, s := range targets {
		s.send(QueueEvent{Gone: p.q.ID})
	}
	a.changed()
}

func (a *Asker) changed() {
	if a.cfg.Changed != nil {
		a.cfg.Changed()
	}
}

// showDialog shows p when the screen is free, and answers it with the
// person's choice. If the dialog fails, p moves to the terminal or stays
// on the queue.
func (a *Asker) showDialog(ctx context.Context, p *pending) {
	select {
	case a.dialog <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-a.dialog }()
	if ctx.Err() != nil {
		return
	}
	c, err := a.cfg.Dialog.Show(ctx, &p.q)
	if ctx.Err() != nil {
		return // answered elsewhere, timed out, or withdrawn
	}
	if err != nil {
		a.moveToTerminal(p)
		return
	}
	if c == AllowAlways && !p.q.OffersAlways() {
		c = AllowOnce
	}
	p.answer(Answer{Choice: c, Via: ViaDialog})
}

// moveToTerminal shows p on its sandbox's terminals after a dialog failed.
func (a *Asker) moveToTerminal(p *pending) {
	a.mu.Lock()
	var out []delivery
	if _, ok := a.pending[p.q.ID]; ok {
		p.via = ViaTerminal
		for t := range a.terminals[p.q.Sandbox.ID] {
			out = append(out, delivery{t, QueueEvent{Question: pendingView(p, t)}})
		}
	}
	a.mu.Unlock()
	deliver(out)
}

// Answer answers the waiting question id. via is ViaQueue or
// ViaTerminal; a terminal answer must carry the code the terminal showed.
func (a *Asker) Answer(id string, c Choice, via, code string) error {
	switch c {
	case AllowOnce, AllowAlways, Deny:
	default:
		return fmt.Errorf("answer %q: say allow, always or deny", c)
	}
	a.mu.Lock()
	p := a.pending[id]
	a.mu.Unlock()
	if p == nil {
		return ErrNoQuestion
	}
	switch via {
	case ViaQueue:
	case ViaTerminal:
		if code != p.code {
			return ErrBadCode
		}
	default:
		return fmt.Errorf("answer by %q: only the queue and a terminal answer this way", via)
	}
	if c == AllowAlways && !p.q.OffersAlways() {
		c = AllowOnce
	}
	if !p.answer(Answer{Choice: c, Via: via}) {
		return ErrNoQuestion
	}
	return nil
}

// Pending lists the waiting questions, oldest first.
func (a *Asker) Pending() []Question {
	a.mu.Lock()
	out := make([]Question, 0, len(a.pending))
	for _, p := range a.pending {
		out = append(out, p.q)
	}
	a.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Asked.Before(out[j].Asked) })
	return out
}

// Remembered lists the "always" answers.
func (a *Asker) Remembered() []Remembered { return a.remember.all() }

// Forget drops remembered answers: those of scope (every scope if ""),
// with key (every key if ""). It returns how many it dropped.
func (a *Asker) Forget(scope, key string) (int, error) { return a.remember.forget(scope, key) }

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
