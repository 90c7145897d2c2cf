// Package daemon is lnk's per-user process: it owns the registry of
// sandboxes, one proxy per sandbox, and the control socket the CLI talks
// to. Only app/lnk imports it.
//
// # One per user
//
// Run takes an exclusive lock on daemon.lock in the runtime folder
// (apitype.Paths.Runtime, 0700) for its whole life, so a second daemon
// finds the first and fails with [ErrRunning], naming its pid. It then
// clears what a dead predecessor may have left (old proxy sockets under
// sb/): a restarted daemon starts with an empty registry and nothing from
// before can let a connection through.
//
// # Sandboxes
//
// Wrap registers a sandbox: an id (12 hex digits), a 256-bit random
// secret, a proxy listening on sb/<id>/proxy.sock (folder 0700, socket
// 0600) and, on macOS and Windows, where the sandbox shares this machine's
// loopback, on 127.0.0.1 at a port the system picks (behind the same
// secret), and the confining command from confine.Wrap. The CLI resolves the
// spec itself (it has the caller's HOME, folder and PATH, and shows the
// spec's errors with their lines) and sends the resolved spec.Policy;
// the daemon adds its own folders to the policy's hidden lnk dirs in case
// the caller's environment named others. A wrapped sandbox whose init has
// not opened its session within Config.WrapExpiry expires: its proxy
// closes and the command, if run later, finds no way out and refuses to
// start.
//
// # The session
//
// Each proxy serves the internal route /session (see the contract in
// confine and proxy). The first upgrade to "lnk-session" on a sandbox's
// proxy is its init's session; later ones are refused (409), so a process
// inside cannot take init's place. The daemon learns init's host pid from
// the connection's SO_PEERCRED (proxy.PeerCred) and holds it as an
// os.Process (a pidfd on Linux), so a reused pid is never signalled. Init
// sends {"event":"start","pid":N} and {"event":"exit","code":N}; the
// daemon sends {"cmd":"stop"}, {"cmd":"pause"} and {"cmd":"resume"}. A
// session that drops marks the sandbox exited (code -1 if init never said)
// and closes its proxy.
//
// A login's callback (bridges/oauth) enters a Linux sandbox through init:
// the daemon sends {"cmd":"dial","host":H,"port":P,"token":T}, init
// connects to H:P on the sandbox's loopback and brings that connection
// on a new unix connection to the internal route /dial (upgrade
// "lnk-dial", header Lnk-Dial-Token: T). The route takes it only from
// init's own pid (SO_PEERCRED) with a token the daemon is waiting for,
// once; anything else is refused (403, 410) and logged.
//
// Stop sends {"cmd":"stop"}, stops the proxy (every connection closed,
// new ones refused), signals init SIGTERM and, after Config.StopGrace,
// SIGKILL; init is pid 1 of the sandbox's pid namespace, so its death
// ends every process inside. Pause sends {"cmd":"pause"} (init stops
// every process inside) and holds the proxy's new connections; Resume
// undoes both.
//
// # Views
//
// The tray is a view of the registry in the same process: Config.Ready
// hands it the Daemon before it serves, and [Daemon.Subscribe] calls it
// after every change (a sandbox registered, started, paused, resumed,
// stopped, exited, expired or forgotten, and every refused connection
// with its host:port), without the daemon's locks held. It acts through
// the same methods the control socket serves (List, Stop, Pause, Resume,
// Log) and the Asker ([Daemon.Asker]). app/lnk connects the two, so the
// tray never imports this package.
//
// # Failing closed
//
// The proxies live in the daemon. If it dies, every sandbox's way out
// dies with it, and each init, losing its session, kills its command.
package daemon
