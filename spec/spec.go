package spec

// Spec is a sandbox spec: what one sandboxed command may see, change, run
// and reach. Anything a spec does not grant is refused. lnk's own settings
// and sockets, home's secrets and the mandatory protected files are closed
// whatever a spec says.
type Spec struct {
	// Files and folders the sandbox may read and write.
	Filesystem Filesystem `toml:"filesystem"`
	// Programs the sandbox may run.
	Commands Commands `toml:"commands"`
	// Where the sandbox's network may go. All of it goes through lnk's
	// proxy, which logs every connection.
	Network Network `toml:"network"`

	src []byte // the text parsed, for the lines of resolution errors
}

// Filesystem says which paths the sandbox may read and write. Paths start
// with `~` (the home folder), `/` (absolute) or anything else (relative to
// the sandbox's folder). A path may end in a glob (`*`, `**`, `?`, `[...]`)
// in its last components; a glob matches the files that exist when the
// sandbox starts.
//
// Reading is allowed everywhere except `deny_read`, and `allow_read`
// re-opens paths inside a denied one (re-allow beats deny). Writing is
// refused everywhere except `allow_write`, and `deny_write` closes paths
// inside an allowed one (deny beats allow). A writable path is readable.
type Filesystem struct {
	// Paths hidden from the sandbox: a folder reads as empty, a file as
	// empty. Home's secrets (~/.ssh, ~/.gnupg, cloud credentials, browser
	// profiles, keyrings) are hidden without being listed here.
	DenyRead []string `toml:"deny_read"`
	// Paths inside a `deny_read` path (or inside home's hidden secrets) that
	// the sandbox may read after all. lnk's own settings cannot be
	// re-allowed.
	AllowRead []string `toml:"allow_read"`
	// Paths the sandbox may create, change and delete files in. Use "." for
	// the sandbox's folder. Without this key nothing is writable but the
	// sandbox's private /tmp.
	AllowWrite []string `toml:"allow_write"`
	// Paths inside an `allow_write` path that stay read-only. Shell rc
	// files, git hooks and config, and editor and agent config are always
	// read-only, and cannot be created, without being listed here.
	DenyWrite []string `toml:"deny_write"`
}

// Commands says which programs the sandbox may run.
type Commands struct {
	// Programs, or folders of programs, that may run besides the system's
	// own (/usr, /bin, /sbin, /lib and the like, which always may). A bare
	// name ("node") is looked up on PATH when the sandbox starts; a path
	// follows the same rules as in [filesystem]. A missing entry is skipped.
	Allow []string `toml:"allow"`
	// Settings read only on macOS.
	MacOS CommandsMacOS `toml:"macos"`
}

// CommandsMacOS holds the [commands] settings read only on macOS.
type CommandsMacOS struct {
	// Let the sandbox run Xcode's and the Command Line Tools' programs
	// (git, clang, make and the like under /Library/Developer and
	// /Applications/Xcode.app). Ignored on other systems.
	DeveloperTools bool `toml:"developer_tools" default:"false"`
}

// Network says where the sandbox's connections may go.
type Network struct {
	// How the network is confined: "proxy" sends every connection through
	// lnk's filtering proxy; "host" gives the sandbox the host's network
	// with no filtering at all (still logged where it passes the proxy),
	// shown as loudly as running with no sandbox.
	Mode string `toml:"mode" enum:"proxy,host" default:"proxy"`
	// Host names the sandbox may reach through the proxy: exact names
	// ("example.com") or subdomain patterns ("*.example.com", which never
	// matches example.com itself), each with an optional port
	// ("example.com:443"). "*" allows any name. Addresses belong under
	// [network.lan], not here.
	Hosts []string `toml:"hosts"`
	// Host names, patterns or addresses the sandbox may never reach, even
	// when `hosts` or [network.lan] allow them (deny beats allow).
	Deny []string `toml:"deny"`
	// Machines on your network (and this machine's own services) the
	// proxy may reach. Still through the proxy, still logged.
	LAN LAN `toml:"lan"`
	// lnk's own routes the sandbox may reach through its proxy: "open"
	// (ask to open a page in your browser), "ask" (ask you a question),
	// "oauth" (receive a login's callback).
	Endpoints []string `toml:"endpoints"`
	// Tools (MCP servers that run outside the sandbox, added with
	// `lnk sandbox tool add`) the sandbox may call.
	Tools []string `toml:"tools"`
}

// LAN names the private, loopback and link-local addresses the proxy may
// dial for this sandbox. Without it every such address is refused, however
// a name resolves.
type LAN struct {
	// Addresses or CIDR ranges, each with an optional port:
	// "192.168.1.20", "10.0.0.0/8", "127.0.0.1:5432", "[fd00::1]:8080".
	Allow []string `toml:"allow"`
}

// Network modes.
const (
	ModeProxy = "proxy"
	ModeHost  = "host"
)
