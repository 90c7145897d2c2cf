package daemon

import (
	"context"
	"sync"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
)

// events collects what a subscriber is told.
type events struct {
	mu  sync.Mutex
	got []apitype.Event
}

func (e *events) add(ev apitype.Event) {
	e.mu.Lock()
	e.got = append(e.got, ev)
	e.mu.Unlock()
}

// waitFor waits (bounded) for an event of sandbox id in state.
func (e *events) waitFor(t *testing.T, id, state string) apitype.Event {
	t.Helper()
	for i := 0; i < 500; i++ {
		e.mu.Lock()
		for _, ev := range e.got {
			if ev.Kind == apitype.EventChanged && ev.Sandbox.ID == id && ev.Sandbox.State == state {
				e.mu.Unlock()
				return ev
			}
		}
		e.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no event of %s becoming %s; got %+v", id, state, e.got)
	return apitype.Event{}
}

// A subscriber hears of every change of the registry: registered,
// started, paused, resumed, stopped; after cancel, nothing.
func TestSubscribe(t *testing.T) {
	ready := make(chan *Daemon, 1)
	td := startDaemon(t, Config{Ready: func(d *Daemon) { ready <- d }})
	d := <-ready
	var ev events
	cancel := d.Subscribe(ev.add)
	var other events
	cancelOther := d.Subscribe(other.add)
	cancelOther()

	resp, req := td.wrap("sleep", "1")
	ev.waitFor(t, resp.ID, apitype.StateStarting)
	fp, _ := fakeInitProc(t, req, "polite")
	ev.waitFor(t, resp.ID, apitype.StateRunning)
	ctx := context.Background()
	if err := d.Pause(ctx, resp.ID); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, resp.ID, apitype.StatePaused)
	if err := d.Resume(ctx, resp.ID); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, resp.ID, apitype.StateRunning)
	if _, err := d.Stop(ctx, &apitype.IDRequest{ID: resp.ID}); err != nil {
		t.Fatal(err)
	}
	fp.wait(t)
	ev.waitFor(t, resp.ID, apitype.StateStopped)
	cancel()
	ev.mu.Lock()
	n := len(ev.got)
	ev.mu.Unlock()
	td.wrap("true")
	time.Sleep(50 * time.Millisecond)
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if len(ev.got) != n {
		t.Errorf("events after cancel: %+v", ev.got[n:])
	}
	if len(other.got) != 0 {
		t.Errorf("a cancelled subscriber was told %+v", other.got)
	}
	if d.Asker() == nil {
		t.Error("no Asker")
	}
}

// A refused connection is an EventBlocked naming the host and port.
func TestSubscribeBlocked(t *testing.T) {
	ready := make(chan *Daemon, 1)
	td := startDaemon(t, Config{Ready: func(d *Daemon) { ready <- d }})
	d := <-ready
	var ev events
	defer d.Subscribe(ev.add)()
	resp, _ := td.wrap("true")
	d.mu.Lock()
	sb := d.sandboxes[resp.ID]
	d.mu.Unlock()
	tap := &logTap{d: d, sb: sb}
	tap.Write([]byte(`{"time":"2026-01-02T03:04:05Z","sandbox":"` + resp.ID + `","proto":"http","host":"deny.example","port":443,"decision":"deny","rule":"not allowed"}`))
	ev.mu.Lock()
	defer ev.mu.Unlock()
	for _, e := range ev.got {
		if e.Kind == apitype.EventBlocked {
			if e.Host != "deny.example:443" || e.Sandbox.LastBlocked != "deny.example:443" {
				t.Errorf("blocked event %+v", e)
			}
			return
		}
	}
	t.Errorf("no blocked event in %+v", ev.got)
}
