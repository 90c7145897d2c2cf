// Package mcpremote is `lnk-sandbox sandbox mcp-remote URL [--header K:V...]`:
// a stdio MCP server that relays every message to a Streamable HTTP MCP
// server and back, built on the MCP Go SDK's transports (a stdio
// connection on one side, a Streamable HTTP client connection on the
// other, messages passed as they are).
//
// It is a tool's command (`lnk sandbox tool add NAME -- lnk-sandbox
// sandbox mcp-remote URL --header 'Authorization: Bearer ${TOKEN}'`), so it
// runs outside every sandbox, started by the tools bridge: everything a
// stdio tool gets (asking for each call, sessions, the shared hub, the
// log) a remote server gets too, and the token lives in lnk's settings,
// never inside a sandbox. ${NAME} in a header's value is replaced with the
// variable NAME of mcp-remote's environment (set by the tool's --env), so
// the token is not on a command line either, where other users of the
// machine could read it (/proc/PID/cmdline). A URL is https://, or http:// only to this
// machine (localhost, 127.0.0.0/8, ::1), so a token never crosses a
// network in the clear. The headers are sent with every request; the
// protocol version the server chose at initialize is sent as
// Mcp-Protocol-Version after it. Server-initiated messages arrive on the
// streams of the requests they belong to (no standalone GET stream is
// opened).
package mcpremote
