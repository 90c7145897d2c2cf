package dialogs

import (
	"crypto/rand"
	"sync"
)

// Pending is a waiting question as a terminal or a queue watcher sees it.
type Pending struct {
	Question
	// Via is the channel the question is shown on: dialog, terminal or
	// queue. Any of them may still be answered from the queue.
	Via string `json:"via"`
	// Text is the question as the person reads it (see [Text]).
	Text string `json:"text"`
	// Code is the code a terminal answer must carry; it is sent only to
	// the terminals of the question's sandbox.
	Code string `json:"code,omitempty"`
}

// QueueEvent is a change of the waiting questions: one appeared, or one
// is gone (answered, timed out or withdrawn).
type QueueEvent struct {
	Question *Pending `json:"question,omitempty"`
	Gone     string   `json:"gone,omitempty"`
}

// eventSink receives queue events without blocking the asker.
type eventSink interface {
	send(QueueEvent)
	isTerminal() bool
}

// sink is a bounded event channel. When its reader falls behind by more
// than its buffer, it is closed (Lost reports it): the reader must
// attach again and read the list afresh, so no question is ever silently
// missing from its view.
type sink struct {
	c      chan QueueEvent
	mu     sync.Mutex
	closed bool
	lost   bool
	detach func()
}

const sinkBuffer = 64

func newSink() sink { return sink{c: make(chan QueueEvent, sinkBuffer)} }

func (s *sink) send(e QueueEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	select {
	case s.c <- e:
	default:
		s.lost = true
		s.closed = true
		close(s.c)
	}
}

func (s *sink) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.c)
	}
}

// Events is the channel of queue events; it is closed by Close, or when
// the reader fell behind (then Lost is true).
func (s *sink) Events() <-chan QueueEvent { return s.c }

// Lost reports whether events were lost because the reader fell behind.
func (s *sink) Lost() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lost
}

// Close detaches the reader.
func (s *sink) Close() {
	if s.detach != nil {
		s.detach()
	}
	s.close()
}

// Terminal is the terminal of a `lnk sandbox run`: it receives the
// questions of its sandbox, with their codes, when no dialog can be shown.
type Terminal struct{ sink }

func (*Terminal) isTerminal() bool { return true }

// Watcher is a view of every waiting question (the tray, `lnk sandbox
// answer --watch`). While one is attached, questions that nobody else
// would see wait on the queue rather than being refused at once.
type Watcher struct{ sink }

func (*Watcher) isTerminal() bool { return false }

// AttachTerminal attaches a terminal to sandbox id. The questions of that
// sandbox already waiting on the queue are sent to it at once.
func (a *Asker) AttachTerminal(id string) *Terminal {
	t := &Terminal{newSink()}
	t.detach = func() {
		a.mu.Lock()
		delete(a.terminals[id], t)
		if len(a.terminals[id]) == 0 {
			delete(a.terminals, id)
		}
		a.mu.Unlock()
	}
	a.mu.Lock()
	if a.terminals[id] == nil {
		a.terminals[id] = map[*Terminal]struct{}{}
	}
	a.terminals[id][t] = struct{}{}
	var out []delivery
	for _, p := range a.pending {
		if p.q.Sandbox.ID == id && p.via != ViaDialog {
			p.via = ViaTerminal
			out = append(out, delivery{t, QueueEvent{Question: pendingView(p, t)}})
		}
	}
	a.mu.Unlock()
	deliver(out)
	return t
}

// Watch attaches a watcher. Every question already waiting is sent to it
// at once.
func (a *Asker) Watch() *Watcher {
	w := &Watcher{newSink()}
	w.detach = func() {
		a.mu.Lock()
		delete(a.watchers, w)
		a.mu.Unlock()
	}
	a.mu.Lock()
	a.watchers[w] = struct{}{}
	var out []delivery
	for _, p := range a.pending {
		out = append(out, delivery{w, QueueEvent{Question: pendingView(p, w)}})
	}
	a.mu.Unlock()
	deliver(out)
	return w
}

// PendingViews lists the waiting questions as the queue shows them.
func (a *Asker) PendingViews() []Pending {
	qs := a.Pending()
	out := make([]Pending, 0, len(qs))
	a.mu.Lock()
	for _, q := range qs {
		if p := a.pending[q.ID]; p != nil {
			out = append(out, *pendingView(p, nil))
		}
	}
	a.mu.Unlock()
	return out
}

// delivery is an event computed under Asker.mu and sent after it is
// released.
type delivery struct {
	to eventSink
	e  QueueEvent
}

func deliver(ds []delivery) {
	for _, d := range ds {
		d.to.send(d.e)
	}
}

// pendingView shows p to s; call it with Asker.mu held.
func pendingView(p *pending, s eventSink) *Pending {
	v := &Pending{Question: p.q, Via: p.via, Text: Text(&p.q)}
	if s != nil && s.isTerminal() {
		v.Code = p.code
	}
	return v
}

// codeAlphabet has no letters or digits that look alike (0/O, 1/I/L).
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// newCode returns a short random code a person types back: 5 characters,
// about 25 bits, for a question that lives two minutes.
func newCode() string {
	b := make([]byte, 5)
	rand.Read(b)
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b)
}
