package bridges

import (
	"context"
	"net"

	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
	"lnk.dev/sandbox/spec"
)

// Sandbox is one sandbox as a bridge sees it.
type Sandbox struct {
	// Who is the sandbox as questions name it.
	Who dialogs.Sandbox
	// Policy is the sandbox's resolved spec.
	Policy *spec.Policy
	// Proxy is the sandbox's proxy, to register routes on.
	Proxy *proxy.Proxy
	// Log writes one line to the sandbox's log (its Sandbox field is
	// filled in).
	Log func(proxy.Record)
	// Done is closed when the sandbox has finished; a bridge frees what it
	// holds for the sandbox then.
	Done <-chan struct{}
	// DialInside connects to host:port on the sandbox's own loopback
	// (host "127.0.0.1", "::1" or "localhost"), through its init. It is
	// nil where the sandbox shares this computer's loopback (macOS,
	// Windows), so a login's callback reaches it as it is.
	DialInside func(ctx context.Context, host string, port int) (net.Conn, error)
}

// Bridge is one bridge, wired by the daemon.
type Bridge interface {
	// Register adds the bridge's routes to sb's proxy. It is called once
	// per sandbox, before the sandbox's command runs.
	Register(sb *Sandbox)
}
