// Package tools is the bridge to MCP servers that run outside the
// sandbox: tools that need the person's credentials or machine. A sandbox
// reaches only the tools its spec names (network.tools), and every
// tools/call asks the person unless the tool's settings allow it.
//
// # Connection
//
// Inside a sandbox, an agent's MCP configuration runs `lnk sandbox tool
// connect NAME` (stdio). It sends, through the sandbox's proxy and with
// the sandbox's credentials,
//
//	GET http://lnk.sandbox/tools/NAME HTTP/1.1
//	Connection: Upgrade
//	Upgrade: lnk-mcp
//
// and on "101 Switching Protocols" the connection carries MCP's stdio
// framing both ways: one JSON-RPC message per line. A tool the spec does
// not name is refused (403) before anything starts, and so is one that is
// not defined in the settings (404); each refusal is a log line. The
// route is internal to the proxy (no endpoint gates it): the bridge gates
// it per tool.
//
// # Servers
//
// A tool's server is started outside, from its definition in lnk's
// settings (app/toolconf), with its own environment on a short base of
// the daemon's (HOME, PATH, USER, LOGNAME, SHELL, TERM, LANG, LC_ALL,
// TMPDIR, as MCP's own clients do) and never the sandbox's, in the
// person's home folder, in a process group of its own. By default each
// session has its own server, started when the session opens and stopped
// when it ends: stdin closed, then SIGTERM to its group after Grace, then
// SIGKILL. Its stderr goes to the daemon's log. A session whose client
// closed its side still gets the answers to calls already made (for up to
// five seconds). When the sandbox ends or is stopped, its sessions end.
// Bridge.Close, called when the daemon exits, stops the shared servers.
//
// # Relay
//
// Every message is read strictly (one JSON object, "jsonrpc": "2.0", an
// id that is a string or a number) and written again from what was read,
// so the server receives exactly what the bridge decided on: duplicate
// keys (the last counts, as in JSON.parse), members other than
// JSON-RPC's and differently cased keys never reach it. A tools/call's
// params are re-encoded the same way, so the name and arguments the
// person is shown are the ones the server gets. Batches are refused
// (MCP has none), and a line over 32 MiB ends the session. Request ids
// are renumbered for the server and restored on the way back, in both
// directions, also for private servers.
//
// # Asking
//
// Each tools/call asks the person (dialogs.Asker) unless the tool's
// --allow names the called tool or the tool has --ask none. The question
// shows the tool, the called name, its arguments (one line per key,
// elided safely) and the server's own annotations (destructiveHint,
// readOnlyHint, idempotentHint, openWorldHint) as last seen in a
// tools/list answer: shown, never trusted to skip asking, since the
// server sets them itself. It offers "Always for this sandbox"
// (remembered per spec and folder). With no dialog, no terminal and no
// queue watcher, a call that would ask is refused at once with a reason
// naming --allow. A refused call is answered with a JSON-RPC error (code
// -32001, data {tool, call, via}) and the session goes on; a call the
// client cancels while it is being asked about gets no answer, as MCP
// wants. Other requests (initialize, tools/list, resources, prompts,
// ping) pass without asking: reading what a server offers acts on
// nothing.
//
// tools/list answers what the server lists: every tool of a reachable
// server may be called, each call subject to asking, and a server the
// spec does not name is unreachable as a whole, so nothing of it is
// listed. "Only what the sandbox may call" is enforced per server.
//
// # Shared hub
//
// A tool added with --shared runs one server for every sandbox that uses
// it, started on the first request and stopped once it had no call for
// its idle time (shared_idle, five minutes by default) and none is in
// flight; a later request starts it again. The hub initializes the
// server itself, once per process, as a client with no capabilities (no
// roots, sampling or elicitation, which would mix sandboxes), with the
// protocol version the first session asked for, and answers every
// session's initialize with the server's result; sessions' initialized
// notifications and pings are answered by the hub. It renumbers each
// session's request ids and progress tokens, routes answers and progress
// back to their session, and passes a request of the server's to the
// only session, or the only one with calls in flight; when it cannot
// tell, it refuses the request. (From protocol 2026-07-28 on, servers
// no longer ask their clients while serving a call.) When a session ends, its calls still at
// the server are cancelled. Asking stays per sandbox, before a call
// reaches the hub. Sharing is opt-in: a server that keeps state between
// calls shares it between sandboxes.
//
// Requests that stay open for a session's life (subscriptions/listen,
// from protocol 2026-07-28 on) count neither for the idle time nor for
// the session's end; when an idle server stops, they are answered with an
// error. Clients of 2026-07-28 open with server/discover instead of
// initialize; the hub passes it on (it is stateless) and still
// initializes the server itself.
//
// # Limits
//
// A sandbox may have MaxSessions sessions open at once (each private one
// is a process outside the sandbox); more are refused (429). A session
// may have MaxInflight requests waiting at its server; more are answered
// with an error. Each question goes through the Asker's own limits (8
// waiting, 30 a minute per sandbox). One write to a session may take ten
// seconds; a sandbox that stops reading loses its session rather than
// holding up a shared server.
//
// # Log
//
// Each request answered is one log line (Proto "tool"): the sandbox, the
// tool (Host), the method and called name and why it was let through
// (Rule), allow or deny, and the duration; a refused call is a deny line.
// Arguments are logged only with Debug (`lnk sandbox daemon --debug`).
package tools
