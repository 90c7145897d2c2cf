package daemon

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"lnk.dev/sandbox/app/apitype"
)

// Stop implements localapi.Backend: it stops one sandbox, or all live
// ones, and returns when each is gone (bounded by twice StopGrace).
func (d *Daemon) Stop(ctx context.Context, r *apitype.IDRequest) ([]string, error) {
	var targets []*sandbox
	if r.All {
		d.mu.Lock()
		for _, sb := range d.sandboxes {
			if sb.finished.IsZero() {
				targets = append(targets, sb)
			}
		}
		d.mu.Unlock()
	} else {
		sb, err := d.get(r.ID)
		if err != nil {
			return nil, err
		}
		d.mu.Lock()
		fin := !sb.finished.IsZero()
		state := sb.info.State
		d.mu.Unlock()
		if fin {
			return nil, apitype.Errorf(apitype.CodeConflict, fmt.Sprintf("sandbox %s has already %s", r.ID, state))
		}
		targets = append(targets, sb)
	}
	ids := make([]string, 0, len(targets))
	for _, sb := range targets {
		d.stopOne(ctx, sb)
		ids = append(ids, sb.info.ID)
	}
	return ids, nil
}

// stopOne asks init to stop, cuts the sandbox's network (which also
// closes the session), signals init SIGTERM and, if it is still there
// after the grace period, SIGKILL. It returns once init is gone (bounded).
func (d *Daemon) stopOne(ctx context.Context, sb *sandbox) {
	d.mu.Lock()
	sb.stopping = true
	sess := sb.sess
	if sess == nil {
		// Wrapped, never started: nothing runs; close the way out so a
		// late run refuses to start.
		sb.info.State = apitype.StateStopped
	}
	d.mu.Unlock()
	if sess == nil {
		d.finish(sb)
		d.changed(sb)
		return
	}
	d.cfg.Logf("sandbox %s: stopping", sb.info.ID)
	sess.send("stop") // fails harmlessly if the upgrade is still under way
	sb.proxy.Stop()
	sess.init.Signal(syscall.SIGTERM)
	if !waitGone(ctx, sess.init, d.cfg.StopGrace) {
		d.cfg.Logf("sandbox %s: init did not stop in %v: SIGKILL", sb.info.ID, d.cfg.StopGrace)
		sess.init.Signal(os.Kill)
		waitGone(ctx, sess.init, d.cfg.StopGrace)
	}
	d.mu.Lock()
	sb.info.State = apitype.StateStopped
	d.mu.Unlock()
	d.finish(sb)
	d.changed(sb)
}

// waitGone polls (bounded by timeout) until p has exited. p is not our
// child, so it cannot be waited for; on Linux it is a pidfd, so a reused
// pid never looks alive.
func waitGone(ctx context.Context, p *os.Process, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		if err := p.Signal(syscall.Signal(0)); err != nil {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(delay)
	}
}

// Pause implements localapi.Backend.
func (d *Daemon) Pause(_ context.Context, id string) error {
	return d.setPaused(id, true)
}

// Resume implements localapi.Backend.
func (d *Daemon) Resume(_ context.Context, id string) error {
	return d.setPaused(id, false)
}

func (d *Daemon) setPaused(id string, pause bool) error {
	sb, err := d.get(id)
	if err != nil {
		return err
	}
	sess, err := d.sessionOf(sb)
	if err != nil {
		return err
	}
	from, to, cmd := apitype.StateRunning, apitype.StatePaused, "pause"
	if !pause {
		from, to, cmd = apitype.StatePaused, apitype.StateRunning, "resume"
	}
	d.mu.Lock()
	state := sb.info.State
	d.mu.Unlock()
	if state != from {
		return apitype.Errorf(apitype.CodeConflict, fmt.Sprintf("sandbox %s is %s, not %s", id, state, from))
	}
	if pause {
		sb.proxy.Pause()
	}
	if err := sess.send(cmd); err != nil {
		return fmt.Errorf("%s sandbox %s: its init does not answer: %v", cmd, id, err)
	}
	if !pause {
		sb.proxy.Resume()
	}
	d.mu.Lock()
	if sb.info.State == from {
		sb.info.State = to
	}
	d.mu.Unlock()
	d.changed(sb)
	return nil
}
