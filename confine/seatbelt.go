package confine

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"lnk.dev/sandbox/spec"
)

// SeatbeltOptions is what a Seatbelt profile needs besides the policy.
type SeatbeltOptions struct {
	// ProxyPort is the proxy's port on this machine's loopback: the one
	// place the sandbox's network may go (mode "proxy").
	ProxyPort int
	// ProxySocket is the proxy's unix socket, where init opens its session
	// with the daemon (the daemon learns init's pid from the socket); ""
	// for none.
	ProxySocket string
	// LnkPath is the lnk binary (init runs inside the profile).
	LnkPath string
	// TempDir is the sandbox's private temporary folder (TMPDIR), writable.
	TempDir string
}

// DarwinExecDirs are macOS's own folders of programs, besides
// spec.SystemExecDirs: the system volume and Apple's extra tools.
var DarwinExecDirs = []string{"/System", "/Library/Apple", "/private/var/select"}

// DeveloperToolDirs are the programs [commands.macos] developer_tools
// opens: the Command Line Tools, and Xcode wherever it is named.
var DeveloperToolDirs = []string{"/Library/Developer"}

// developerToolsRegex matches /Applications/Xcode.app, Xcode-beta.app and
// the like.
const developerToolsRegex = `^/Applications/Xcode[^/]*\.app(/.*)?$`

// MachServices are the only Mach services a sandbox may look up; see the
// package doc ("Seatbelt") for why each is there and what is left out.
var MachServices = []string{
	"com.apple.system.opendirectoryd.libinfo",    // user and group names (getpwuid)
	"com.apple.system.opendirectoryd.membership", // group membership checks
	"com.apple.system.notification_center",       // notify(3): time zone and the like
	"com.apple.system.logger",                    // syslog(3)
	"com.apple.logd",                             // os_log
	"com.apple.trustd",                           // TLS certificate checks
	"com.apple.trustd.agent",                     // TLS certificate checks (per user)
	"com.apple.bsd.dirhelper",                    // the per-user temp and cache folders
}

// rule kinds for the ordered file rules; at equal length they apply in
// this order, so the later one wins (Seatbelt: the last matching rule).
const (
	sbHide  = iota // deny read (and write) of a hidden path
	sbWrite        // allow write (and read) of a writable path
	sbRead         // allow read of a re-allowed path
)

type sbRule struct {
	path string
	glob bool
	kind int
	from string
}

// SeatbeltProfile returns the sandbox-exec profile (SBPL) that confines a
// command to p: reads everywhere but hidden paths, writes only to writable
// ones, programs only from the system's and allowed folders, the network
// only to the proxy's port. It reads the file system (existing protected
// folders to pin) but changes nothing. A path the profile cannot carry
// exactly in an allowing rule is an error.
func SeatbeltProfile(p *spec.Policy, o SeatbeltOptions) (string, error) {
	if p == nil {
		return "", errors.New("seatbelt: no policy: resolve a spec first")
	}
	if p.Network.Mode != spec.ModeHost && (o.ProxyPort <= 0 || o.ProxyPort > 65535) {
		return "", fmt.Errorf("seatbelt: proxy port %d is out of range: pick 1-65535", o.ProxyPort)
	}
	plan, err := planProtect(p)
	if err != nil {
		return "", err
	}
	w := &sbWriter{}
	w.line("(version 1)")
	w.comment("lnk sandbox profile for " + p.Source + ", folder " + p.Folder)
	w.line("(deny default)")
	w.base()
	w.exec(p, o)
	w.files(p, o, plan)
	w.network(p, o)
	if w.err != nil {
		return "", w.err
	}
	return w.b.String(), nil
}

// sbWriter builds a profile; the first error sticks.
type sbWriter struct {
	b   strings.Builder
	err error
}

func (w *sbWriter) line(s string) { w.b.WriteString(s + "\n") }

// comment writes a comment with anything that could end it or confuse a
// reader replaced.
func (w *sbWriter) comment(s string) {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	w.line("; " + s)
}

// rule writes (action op filters...), one filter per line.
func (w *sbWriter) rule(action, op string, filters []string) {
	if len(filters) == 0 {
		return
	}
	w.line("(" + action + " " + op)
	for _, f := range filters {
		w.line("  " + f)
	}
	w.line(")")
}

// literal and subpath filters for a path.
func (w *sbWriter) filter(kind, p string) string {
	q, err := sbplString(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return "(" + kind + " " + q + ")"
}

// pathFilter is the filter for a policy path: subpath for a path, regex
// for a glob. allow says whether the rule grants: a glob that would grant
// more than it says is an error.
func (w *sbWriter) pathFilter(p string, glob, allow bool) string {
	if !glob {
		return w.filter("subpath", p)
	}
	re, broad, err := globRegex(p)
	if err == nil && broad && allow {
		err = fmt.Errorf("seatbelt: the glob %q has a character (a quote, a backslash or a class lnk cannot convert exactly) that would make it grant more than it says: write the pattern without it", p)
	}
	if err != nil {
		if w.err == nil {
			w.err = err
		}
		return ""
	}
	return `(regex #"` + re + `")`
}

func (w *sbWriter) base() {
	w.comment("processes: fork and run (programs below), see and signal only this sandbox's own")
	w.line("(allow process-fork)")
	w.line("(allow signal (target same-sandbox))")
	w.line("(allow process-info* (target same-sandbox))")
	w.line("(allow sysctl-read)")
	w.line("(allow user-preference-read)")
	w.line("(allow ipc-posix-sem)")
	w.line("(allow ipc-posix-shm-read* ipc-posix-shm-write-data (ipc-posix-name \"apple.shm.notification_center\"))")
	w.line("(allow pseudo-tty)")
	w.line("(allow file-map-executable)")
	w.comment("Mach services: only these (package doc, Seatbelt)")
	var names []string
	for _, m := range MachServices {
		names = append(names, w.filter("global-name", m))
	}
	w.rule("allow", "mach-lookup", names)
	w.comment("devices a terminal program needs")
	w.line("(allow file-write-data file-ioctl")
	for _, d := range []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/ptmx", "/dev/dtracehelper"} {
		w.line("  " + w.filter("literal", d))
	}
	w.line(`  (regex #"^/dev/ttys[0-9]+$")`)
	w.line(`  (regex #"^/dev/fd/[0-9]+$")`)
	w.line(")")
}

// exec allows programs from the system's folders, the policy's, lnk
// itself and, with developer_tools, Xcode's.
func (w *sbWriter) exec(p *spec.Policy, o SeatbeltOptions) {
	w.comment("programs: the system's, [commands] allow, lnk itself")
	var fs []string
	for _, d := range append(append([]string{}, spec.SystemExecDirs...), DarwinExecDirs...) {
		fs = append(fs, w.filter("subpath", d))
	}
	for _, e := range p.Exec {
		fs = append(fs, w.pathFilter(e.Path, e.Glob, true))
	}
	if o.LnkPath != "" {
		fs = append(fs, w.filter("literal", o.LnkPath))
	}
	if p.DeveloperTools {
		for _, d := range DeveloperToolDirs {
			fs = append(fs, w.filter("subpath", d))
		}
		fs = append(fs, `(regex #"`+developerToolsRegex+`")`)
	}
	w.rule("allow", "process-exec", fs)
}

// files writes the file rules in the order that makes the spec's algebra
// hold with Seatbelt's "last matching rule wins": by path length, then
// kind (a deeper grant or denial beats a shallower one, re-allow beats
// deny at the same path), then every write denial, protected name and
// lnk's own dirs last, so nothing re-opens them.
func (w *sbWriter) files(p *spec.Policy, o SeatbeltOptions, plan *protectPlan) {
	w.comment("reads: everything but hidden paths")
	w.line("(allow file-read*)")
	var rules []sbRule
	for _, h := range p.Hidden {
		if h.From != "lnk" {
			rules = append(rules, sbRule{h.Path, h.Glob, sbHide, h.From})
		}
	}
	for _, x := range p.Writable {
		rules = append(rules, sbRule{x.Path, x.Glob, sbWrite, x.From})
	}
	for _, a := range p.ReadAllow {
		rules = append(rules, sbRule{a.Path, a.Glob, sbRead, a.From})
	}
	sort.SliceStable(rules, func(i, j int) bool {
		if len(rules[i].path) != len(rules[j].path) {
			return len(rules[i].path) < len(rules[j].path)
		}
		if rules[i].kind != rules[j].kind {
			return rules[i].kind < rules[j].kind
		}
		return rules[i].path < rules[j].path
	})
	if o.TempDir != "" {
		w.comment("the sandbox's private temporary folder")
		w.rule("allow", "file-read* file-write*", []string{w.filter("subpath", o.TempDir)})
	}
	for _, r := range rules {
		w.fileRule(p, r)
	}
	w.denials(p, plan)
}

func (w *sbWriter) fileRule(p *spec.Policy, r sbRule) {
	switch r.kind {
	case sbHide:
		w.comment("hidden: " + r.from)
		w.rule("deny", "file-read* file-write*", []string{w.pathFilter(r.path, r.glob, false)})
	case sbWrite:
		w.comment("writable: " + r.from)
		w.rule("allow", "file-read* file-write*", []string{w.pathFilter(r.path, r.glob, true)})
	case sbRead:
		w.comment("re-allowed read: " + r.from)
		w.rule("allow", "file-read*", []string{w.pathFilter(r.path, r.glob, true)})
		if !r.glob {
			w.rule("allow", "file-read-metadata", w.ancestors(p, r.path))
		}
		if !r.glob && insideWritable(r.path, p.Writable) {
			w.rule("allow", "file-write*", []string{w.pathFilter(r.path, false, true)})
		}
	}
}

// ancestors lets the sandbox stat the folders between a hidden path and a
// path re-allowed inside it, so realpath and the like work on it.
func (w *sbWriter) ancestors(p *spec.Policy, path string) []string {
	var out []string
	for d := filepath.Dir(path); d != "/" && d != "."; d = filepath.Dir(d) {
		if !p.CanRead(d) {
			out = append(out, w.filter("literal", d))
		}
	}
	return out
}

func insideWritable(path string, writable []spec.Path) bool {
	for _, x := range writable {
		if !x.Glob && within(path, x.Path) {
			return true
		}
	}
	return false
}

// denials closes what no grant may re-open: deny_write, protected names
// (by regex, so new files are covered too), pinned folders, and lnk's own
// dirs.
func (w *sbWriter) denials(p *spec.Policy, plan *protectPlan) {
	var fs []string
	for _, d := range p.WriteDenied {
		fs = append(fs, w.pathFilter(d.Path, d.Glob, false))
	}
	if len(fs) > 0 {
		w.comment("deny_write: read-only inside writable paths (deny beats allow)")
		w.rule("deny", "file-write*", fs)
	}
	fs = nil
	for _, x := range p.Writable {
		fs = append(fs, w.protectedFilters(x)...)
	}
	for _, ro := range plan.readOnly {
		fs = append(fs, w.filter("subpath", ro))
	}
	for _, pin := range plan.pin {
		if exists(pin) { // a folder holding protected names: not renamed or removed
			fs = append(fs, w.filter("literal", pin))
		}
	}
	if len(fs) > 0 {
		w.comment("mandatory protection: never written or created in a writable folder, in any letter case")
		w.rule("deny", "file-write*", fs)
	}
	fs = nil
	for _, l := range p.Link {
		fs = append(fs, w.filter("subpath", l))
	}
	w.comment("lnk's own settings, state and sockets: never read or written")
	w.rule("deny", "file-read* file-write*", fs)
}

// protectedFilters are regexes for every protected name at any depth
// below a writable root (a glob's matches count as roots).
func (w *sbWriter) protectedFilters(x spec.Path) []string {
	var root string
	if x.Glob {
		re, _, err := globRegex(x.Path)
		if err != nil {
			return nil // the writable rule reported it
		}
		root = strings.TrimSuffix(strings.TrimPrefix(re, "^"), "(/.*)?$")
	} else {
		if err := sbplCheck(x.Path); err != nil {
			return nil // the writable rule reported it
		}
		root, _ = regexLiteral(strings.TrimSuffix(x.Path, "/"))
	}
	var alts []string
	for _, n := range spec.ProtectedNames {
		f, _ := regexFold(n)
		alts = append(alts, f)
	}
	return []string{`(regex #"^` + root + `(/.*)?/(` + strings.Join(alts, "|") + `)(/.*)?$")`}
}

// network allows the proxy's loopback port only, or, in host mode, all of
// it; binding and accepting on loopback stay open (a login's callback).
func (w *sbWriter) network(p *spec.Policy, o SeatbeltOptions) {
	if p.Network.Mode == spec.ModeHost {
		w.comment(`!! network mode "host": NO filtering, the host's whole network`)
		w.line("(allow network*)")
		return
	}
	w.comment("network: only lnk's proxy on this machine's loopback; no DNS, no other address")
	w.line(`(allow network-outbound (remote tcp "localhost:` + strconv.Itoa(o.ProxyPort) + `"))`)
	if o.ProxySocket != "" {
		w.comment("the proxy's socket, for init's session (the same proxy, behind the same secret)")
		w.line("(allow network-outbound (remote unix-socket " + w.filter("path-literal", o.ProxySocket) + "))")
	}
	w.comment("servers on loopback (a login's callback arrives from your browser)")
	w.line(`(allow network-bind network-inbound (local tcp "localhost:*"))`)
}
