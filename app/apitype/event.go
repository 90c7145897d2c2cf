package apitype

// Kinds of an [Event].
const (
	// EventChanged: a sandbox was registered, changed state, or was
	// forgotten (Forgotten is then true).
	EventChanged = "changed"
	// EventBlocked: the proxy refused a connection of the sandbox to
	// Event.Host.
	EventBlocked = "blocked"
)

// Event is a change in the daemon's registry, for views of it (the tray's
// menu and its notifications).
type Event struct {
	Kind string `json:"kind"`
	// Sandbox is the sandbox as it is after the change.
	Sandbox Sandbox `json:"sandbox"`
	// Host is the refused host:port of an EventBlocked (never a URL: no
	// path or query is known to the proxy's log of a refusal).
	Host string `json:"host,omitempty"`
	// Forgotten is true when the sandbox left the registry.
	Forgotten bool `json:"forgotten,omitempty"`
}
