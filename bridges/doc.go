// Package bridges holds what every bridge shares: the [Sandbox] a bridge
// serves and the [Bridge] interface the daemon wires each one through.
// The bridges themselves are its sub-packages: asks (a sandbox asks the
// person a question), open (a page in the person's browser), oauth (a
// login's localhost callback) and tools (MCP servers that run outside).
//
// A bridge registers routes on a sandbox's proxy (http://lnk.sandbox/...)
// and asks the person through the dialogs package before it acts. The
// daemon wires each bridge explicitly (app/daemon/bridges.go); nothing
// registers itself from init().
package bridges
