// Package safesocket is the control socket's transport: a per-user unix
// socket on Linux and macOS, a named pipe on Windows, each refusing any
// peer that is not this user.
//
// On Unix the socket's folder is created 0700 and must be owned by this
// user and not open to others (a folder that is, is refused, not fixed);
// the socket is made 0600. Errors on mkdir and chmod are errors. Every
// accepted connection is checked before it reaches the server: the peer's
// credentials (SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS) must carry
// this process's uid, and on Linux the peer must share this process's
// network namespace, which a process inside a sandbox does not (its wall
// unshares the network). A refused peer's connection is closed at once and
// counted; [Listener.Refused] says how many were.
//
// On Windows the pipe's security descriptor grants access to this user's
// SID alone (see [PipeSDDL]) and refuses remote clients.
//
// A stale socket (a file that no server answers on) is removed by [Listen];
// a live one makes Listen fail with [ErrInUse], which is how a second
// daemon finds the first.
package safesocket
