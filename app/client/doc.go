// Package client is the Go client of the daemon's control API. Its zero
// value talks to this user's daemon at the default socket.
//
// [Client.EnsureDaemon] starts the daemon when its socket is absent or
// dead: the same lnk binary with `sandbox tray` when a desktop session
// is there ([DaemonVerb]), else `sandbox daemon`, detached (a new
// session, stdin from /dev/null, stdout and stderr appended to
// daemon.log in lnk's state folder), then waits up to [StartTimeout] for
// it to answer. A socket file that nobody answers on means the daemon
// died; EnsureDaemon then reports [Started.Died] so the CLI can say that
// the sandboxes it ran lost their network.
//
// Errors: a daemon that is not there is [ErrNoDaemon]; errors the daemon
// sends back are *apitype.Error (match them with errors.Is against
// apitype.ErrNotFound and friends).
package client
