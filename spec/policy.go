package spec

import (
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
)

// Policy is a spec resolved against a machine: absolute, cleaned,
// symlink-checked paths and compiled network rules. The walls and the proxy
// take a Policy, never a Spec.
type Policy struct {
	Source string // the spec's file, or "default"
	Home   string // the home folder, resolved
	Folder string // the sandbox's folder, resolved

	// Hidden are paths the sandbox cannot read: deny_read, home's secrets
	// and lnk's own dirs. A hidden path that does not exist must stay
	// absent: a wall keeps the sandbox from creating it.
	Hidden []Path
	// ReadAllow are paths inside Hidden that are readable after all.
	ReadAllow []Path
	// Writable are the folders and files the sandbox may write. Each is
	// readable too, unless it lies in lnk's own dirs (never allowed).
	Writable []Path
	// WriteDenied are deny_write paths: read-only inside Writable.
	WriteDenied []Path
	// Protected are ProtectedNames: read-only, and never created, inside
	// every Writable folder.
	Protected []string
	// Link are lnk's own dirs: hidden, never re-allowed, never writable.
	Link []string
	// Exec are programs and folders of programs that may run, besides
	// SystemExecDirs.
	Exec []Path
	// DeveloperTools is [commands.macos] developer_tools.
	DeveloperTools bool
	// Network is the compiled [network] section.
	Network NetworkPolicy
	// Notes say what resolution skipped (missing paths) and why.
	Notes []string
}

// Path is one resolved path of a policy.
type Path struct {
	// Path is absolute and clean. For a glob it is the pattern, anchored.
	Path string
	// Glob is true when Path is a pattern; see [Path.Expand].
	Glob bool
	// Dir, Exists: what the path is on the machine at resolution time.
	Dir    bool
	Exists bool
	// From names where it came from: a key path such as
	// "filesystem.deny_read[0]", or "home secrets", "lnk", "folder".
	From string
}

// SystemExecDirs are the folders whose programs always may run: without
// them not even a shell starts. Landlock needs the libraries too.
var SystemExecDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/alternatives", "/nix/store", "/opt/homebrew", "/usr/local"}

// NetworkPolicy is the compiled [network] section.
type NetworkPolicy struct {
	Mode      string // ModeProxy or ModeHost
	Hosts     []HostPattern
	Deny      []HostPattern
	LAN       []LANRule
	Endpoints []string
	Tools     []string
}

// Decision is the answer of a network rule check, with the rule that gave
// it for the log.
type Decision struct {
	Allow bool
	Rule  string // e.g. "hosts[1] *.example.com", "deny[0] evil.com", "default deny"
}

// CheckName decides whether the sandbox may ask for a name (already
// normalised by [NormalizeHost]) on port. An allowed name must still pass
// [NetworkPolicy.CheckAddr] for each address it resolves to.
func (n *NetworkPolicy) CheckName(name string, port uint16) Decision {
	for i, d := range n.Deny {
		if d.MatchName(name, port) {
			return Decision{false, ruleName("deny", i, d.Text)}
		}
	}
	if n.Mode == ModeHost {
		return Decision{true, "mode host"}
	}
	for i, h := range n.Hosts {
		if h.MatchName(name, port) {
			return Decision{true, ruleName("hosts", i, h.Text)}
		}
	}
	return Decision{false, "not in hosts"}
}

// CheckAddr decides whether the proxy may dial addr on port: the address a
// name resolved to, or an address the sandbox named itself. Deny ranges beat
// everything; special addresses (loopback, private, link-local…) pass only
// when [network.lan] names them; an address the sandbox named itself
// (literal true) passes only when [network.lan] names it.
func (n *NetworkPolicy) CheckAddr(addr netip.Addr, port uint16, literal bool) Decision {
	addr = addr.Unmap()
	for i, d := range n.Deny {
		if d.MatchAddr(addr, port) {
			return Decision{false, ruleName("deny", i, d.Text)}
		}
	}
	for i, l := range n.LAN {
		if l.Contains(addr, port) {
			return Decision{true, ruleName("lan.allow", i, l.Text)}
		}
	}
	if n.Mode == ModeHost {
		return Decision{true, "mode host"}
	}
	if special, why := SpecialAddr(addr); special {
		return Decision{false, "address is " + why + " and not in lan.allow"}
	}
	if literal {
		return Decision{false, "address not in lan.allow"}
	}
	return Decision{true, "public address"}
}

func ruleName(list string, i int, text string) string {
	return list + "[" + strconv.Itoa(i) + "] " + text
}

// AllowsEndpoint reports whether network.endpoints names e.
func (n *NetworkPolicy) AllowsEndpoint(e string) bool { return contains(n.Endpoints, e) }

// AllowsTool reports whether network.tools names t.
func (n *NetworkPolicy) AllowsTool(t string) bool { return contains(n.Tools, t) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CanRead reports whether the policy lets the sandbox read the absolute,
// clean path p, by the spec's rules alone (a wall may refuse more).
// Re-allow beats deny; lnk's dirs are never readable.
func (p *Policy) CanRead(path string) bool {
	if under(path, p.Link) {
		return false
	}
	hidden := deepest(path, p.Hidden)
	if hidden < 0 {
		return true
	}
	return deepest(path, p.ReadAllow) >= hidden || deepest(path, p.Writable) >= hidden
}

// CanWrite reports whether the policy lets the sandbox write the absolute,
// clean path p. Deny beats allow; protected names and lnk's dirs are never
// writable; a hidden path is not writable unless a write grant lies inside
// the hidden one.
func (p *Policy) CanWrite(path string) bool {
	if under(path, p.Link) {
		return false
	}
	w := deepest(path, p.Writable)
	if w < 0 || deepest(path, p.WriteDenied) >= 0 {
		return false
	}
	if h := deepest(path, p.Hidden); h > w && deepest(path, p.ReadAllow) < h {
		return false
	}
	for _, root := range p.Writable {
		if !root.Glob && within(path, root.Path) && IsProtected(root.Path, path) {
			return false
		}
	}
	return true
}

// IsProtected reports whether path, inside the writable folder root, is or
// lies under one of ProtectedNames found at any depth below root.
func IsProtected(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false
	}
	comps := strings.Split(filepath.ToSlash(rel), "/")
	for _, name := range ProtectedNames {
		pc := strings.Split(name, "/")
		for i := 0; i+len(pc) <= len(comps); i++ {
			match := true
			for j := range pc {
				if comps[i+j] != pc[j] {
					match = false
					break
				}
			}
			if match {
				return true
			}
		}
	}
	return false
}

// deepest returns the length of the longest path in list that is path or
// contains it, or -1. Globs match by pattern.
func deepest(path string, list []Path) int {
	best := -1
	for _, e := range list {
		if e.Glob {
			if globMatch(e.Path, path) && len(e.Path) > best {
				best = len(e.Path)
			}
			continue
		}
		if within(path, e.Path) && len(e.Path) > best {
			best = len(e.Path)
		}
	}
	return best
}

func under(path string, roots []string) bool {
	for _, r := range roots {
		if within(path, r) {
			return true
		}
	}
	return false
}

// within reports whether path is root or lies inside it.
func within(path, root string) bool {
	if root == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == root || strings.HasPrefix(path, root) && path[len(root)] == '/'
}
