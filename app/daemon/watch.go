package daemon

import (
	"sync"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/dialogs"
)

// watchers are the in-process views of the registry (the tray). Lock
// order: Daemon.mu is never held while watchers.mu is taken for a call.
type watchers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(apitype.Event)
}

// Subscribe calls fn after every change of the registry: a sandbox
// registered, started, paused, resumed, stopped, exited or forgotten
// (EventChanged), and every refused connection (EventBlocked). fn is
// called without the daemon's locks held, from the goroutine that made
// the change: it must not block. cancel stops the calls.
func (d *Daemon) Subscribe(fn func(apitype.Event)) (cancel func()) {
	w := &d.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fns == nil {
		w.fns = map[int]func(apitype.Event){}
	}
	id := w.next
	w.next++
	w.fns[id] = fn
	return func() {
		w.mu.Lock()
		delete(w.fns, id)
		w.mu.Unlock()
	}
}

// publish tells the watchers about sb; call it without d.mu held.
func (d *Daemon) publish(sb *sandbox, kind, host string, forgotten bool) {
	d.mu.Lock()
	e := apitype.Event{Kind: kind, Sandbox: sb.info, Host: host, Forgotten: forgotten}
	d.mu.Unlock()
	d.watch.mu.Lock()
	fns := make([]func(apitype.Event), 0, len(d.watch.fns))
	for _, fn := range d.watch.fns {
		fns = append(fns, fn)
	}
	d.watch.mu.Unlock()
	for _, fn := range fns {
		fn(e)
	}
}

// changed publishes an EventChanged of sb.
func (d *Daemon) changed(sb *sandbox) { d.publish(sb, apitype.EventChanged, "", false) }

// Asker is the daemon's one Asker, for views that show and answer its
// questions (the tray).
func (d *Daemon) Asker() *dialogs.Asker { return d.asker }
