package dialogs

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrShown is returned by ShowDialog for a question whose dialog is on
// the screen already, or waiting its turn for it.
var ErrShown = errors.New("the question's dialog is shown already")

// ShowDialog shows the waiting question id in a native dialog (the tray
// does when the person clicks it in its menu): the dialog's answer is the
// question's answer, as if it had been shown by dialog from the start.
// The question keeps its channels and its timeout; the dialog closes when
// the question is answered elsewhere or times out. It returns at once: an
// error says why no dialog can be shown.
func (a *Asker) ShowDialog(id string) error {
	if a.cfg.Dialog == nil {
		return errors.New("no dialog is set up")
	}
	if err := a.cfg.Dialog.Available(); err != nil {
		return fmt.Errorf("cannot show a dialog: %w", err)
	}
	a.mu.Lock()
	p := a.pending[id]
	var err error
	switch {
	case p == nil:
		err = ErrNoQuestion
	case p.via == ViaDialog:
		err = ErrShown
	default:
		p.via = ViaDialog
	}
	a.mu.Unlock()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	go a.whileWaiting(ctx, cancel, p)
	go func() {
		defer cancel()
		a.showDialog(ctx, p)
	}()
	return nil
}

// whileWaiting cancels ctx once p is no longer waiting (answered, timed
// out or withdrawn), which closes its dialog.
func (a *Asker) whileWaiting(ctx context.Context, cancel func(), p *pending) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		a.mu.Lock()
		waiting := a.pending[p.q.ID] == p
		a.mu.Unlock()
		if !waiting {
			cancel()
			return
		}
	}
}
