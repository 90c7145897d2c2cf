package dialogs

import (
	"context"
	"sync"
)

// Fake is a scripted Dialog for tests of the code that asks: it answers
// each question with the next choice of its script, or with Deny when the
// script is used up. Shown records the questions it saw.
type Fake struct {
	// Unavailable, when set, is what Available returns.
	Unavailable error
	// Fail, when set, is returned by Show (the dialog could not be shown).
	Fail error

	mu     sync.Mutex
	script []Choice
	shown  []Question
}

// NewFake returns a fake dialog that answers with script, in order.
func NewFake(script ...Choice) *Fake { return &Fake{script: script} }

// Available implements Dialog.
func (f *Fake) Available() error { return f.Unavailable }

// Show implements Dialog.
func (f *Fake) Show(ctx context.Context, q *Question) (Choice, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shown = append(f.shown, *q)
	if f.Fail != nil {
		return Deny, f.Fail
	}
	if err := ctx.Err(); err != nil {
		return Deny, err
	}
	if len(f.script) == 0 {
		return Deny, nil
	}
	c := f.script[0]
	f.script = f.script[1:]
	return c, nil
}

// Shown returns the questions shown so far.
func (f *Fake) Shown() []Question {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Question(nil), f.shown...)
}

var _ Dialog = (*Fake)(nil)
var _ Dialog = (*Zenity)(nil)
