package tray

import (
	"context"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/dialogs"
)

// Model is what the tray shows and acts on: lnk's daemon, in the same
// process. The tray never talks to a sandbox; every action goes through
// the Model, exactly as the CLI's verbs do through the control socket.
type Model interface {
	// List returns the registry, oldest first.
	List(ctx context.Context) []apitype.Sandbox
	// Subscribe calls fn (which must not block) after every change of
	// the registry; cancel stops it.
	Subscribe(fn func(apitype.Event)) (cancel func())
	// Stop stops one sandbox (or all), returning when they are gone.
	Stop(ctx context.Context, r *apitype.IDRequest) ([]string, error)
	// Pause and Resume freeze and thaw a sandbox.
	Pause(ctx context.Context, id string) error
	Resume(ctx context.Context, id string) error
	// Log reads the proxy's log (of one sandbox, or all when "").
	Log(ctx context.Context, sandbox string, follow bool, fn func(*apitype.LogRecord) error) error
	// Asker is the daemon's Asker: the tray watches and shows its
	// questions.
	Asker() *dialogs.Asker
}
