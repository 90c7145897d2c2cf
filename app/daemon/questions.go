package daemon

import (
	"context"
	"errors"
	"strings"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/dialogs"
)

// scopeOf is the scope "always" answers are remembered under: the spec
// file and the folder, so the same spec in the same folder is the same
// sandbox to the person from one run to the next.
func scopeOf(specFile, folder string) string { return specFile + "\x00" + folder }

func splitScope(scope string) (specFile, folder string) {
	specFile, folder, _ = strings.Cut(scope, "\x00")
	return specFile, folder
}

func (d *Daemon) questionOf(p *dialogs.Pending) *apitype.Question {
	return &apitype.Question{
		ID: p.ID, SandboxID: p.Sandbox.ID, SandboxName: p.Sandbox.Name,
		Bridge: p.Bridge, Action: dialogs.Clean(p.Action), Subject: dialogs.Clean(p.Subject),
		Text: p.Text, Via: p.Via, Always: p.OffersAlways(), Code: p.Code,
		Asked: p.Asked, Expires: p.Asked.Add(d.asker.Timeout()),
	}
}

// Questions implements localapi.Backend.
func (d *Daemon) Questions(context.Context) []apitype.Question {
	views := d.asker.PendingViews()
	out := make([]apitype.Question, 0, len(views))
	for i := range views {
		out = append(out, *d.questionOf(&views[i]))
	}
	return out
}

// WatchQuestions implements localapi.Backend.
func (d *Daemon) WatchQuestions(ctx context.Context, terminalFor string, fn func(*apitype.QuestionEvent) error) error {
	type stream interface {
		Events() <-chan dialogs.QueueEvent
		Lost() bool
		Close()
	}
	var s stream
	if terminalFor != "" {
		if _, err := d.get(terminalFor); err != nil {
			return err
		}
		s = d.asker.AttachTerminal(terminalFor)
	} else {
		s = d.asker.Watch()
	}
	defer s.Close()
	if err := fn(&apitype.QuestionEvent{Ready: true}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-s.Events():
			if !ok {
				if s.Lost() {
					return errors.New("the questions stream fell behind: watch again")
				}
				return nil
			}
			ev := &apitype.QuestionEvent{Gone: e.Gone}
			if e.Question != nil {
				ev.Question = d.questionOf(e.Question)
			}
			if err := fn(ev); err != nil {
				return err
			}
		}
	}
}

// Answer implements localapi.Backend.
func (d *Daemon) Answer(_ context.Context, r *apitype.AnswerRequest) error {
	via := dialogs.ViaQueue
	if r.Terminal {
		via = dialogs.ViaTerminal
	}
	err := d.asker.Answer(r.ID, dialogs.Choice(r.Choice), via, r.Code)
	switch {
	case errors.Is(err, dialogs.ErrNoQuestion):
		return apitype.Errorf(apitype.CodeNotFound, "question "+r.ID+": "+err.Error())
	case errors.Is(err, dialogs.ErrBadCode):
		return apitype.Errorf(apitype.CodeDenied, err.Error())
	case err != nil:
		return apitype.Errorf(apitype.CodeBadRequest, err.Error())
	}
	return nil
}

// Remembered implements localapi.Backend.
func (d *Daemon) Remembered(context.Context) []apitype.Remembered {
	var out []apitype.Remembered
	for _, r := range d.asker.Remembered() {
		sp, folder := splitScope(r.Scope)
		out = append(out, apitype.Remembered{Spec: sp, Folder: folder, Key: r.Key, Since: r.Since})
	}
	return out
}

// Forget implements localapi.Backend.
func (d *Daemon) Forget(_ context.Context, r *apitype.ForgetRequest) (int, error) {
	n := 0
	for _, m := range d.asker.Remembered() {
		sp, folder := splitScope(m.Scope)
		if !r.All && ((r.Spec != "" && r.Spec != sp) || (r.Folder != "" && r.Folder != folder) || (r.Key != "" && r.Key != m.Key)) {
			continue
		}
		k, err := d.asker.Forget(m.Scope, m.Key)
		n += k
		if err != nil {
			return n, apitype.Errorf(apitype.CodeInternal, "forget: "+err.Error())
		}
	}
	return n, nil
}
