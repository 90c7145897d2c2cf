// Package toolconf is the person's tool settings: the MCP servers that run
// outside every sandbox, as `lnk sandbox tool add` writes them and the
// daemon's tools bridge reads them. It is shared by app/cli (which must
// not link the bridges) and app/daemon, and imports only the standard
// library, the TOML library and spec.
//
// The settings live in tools.toml in lnk's config folder
// ($XDG_CONFIG_HOME/lnk, see apitype.Paths.ToolsFile), one of lnk's own
// folders that every sandbox has hidden: nothing inside a sandbox can read
// a tool's command, environment or token, or write a tool of its own. The
// file is written 0600 in a 0700 folder, atomically (a temporary file
// renamed over it), and read strictly: unknown keys, bad names and
// missing commands are errors that name the file and the key.
//
//	shared_idle = "5m"            # a shared server stops after this long without calls
//
//	[tool.fs]
//	command = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]
//	env = { LOG_LEVEL = "info" }  # the server's own variables (never the sandbox's)
//	allow = ["read_file"]         # calls that never ask
//	ask = "calls"                 # "calls" (default): every other call asks; "none": no call asks
//	shared = false                # true: one server for every sandbox, under the hub
package toolconf
