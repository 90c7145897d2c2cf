package confine

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"lnk.dev/sandbox/spec"
)

// Kinds of mount, in the order they apply when two name the same path.
// Across paths, a mount always comes after every mount on an ancestor of
// its path, so a deeper grant or denial is never undone by a shallower one.
const (
	kBase    = iota // ro-bind /, --dev, --proc, fresh tmpfs
	kHide           // deny_read and home secrets: tmpfs or /dev/null
	kWrite          // allow_write: bound read-write
	kRead           // allow_read inside a hidden path: bound read-only
	kDeny           // deny_write inside a writable path: bound read-only
	kPin            // parents of protected names: bound to themselves (no rename)
	kProtect        // protected names and placeholders: bound read-only
	kLink           // lnk's own dirs: hidden, never re-opened
)

type mount struct {
	path string
	kind int
	args []string
}

// freshRoots are tmpfs (or fresh dev/proc) mounts: nothing of the host's
// under them is visible unless a later bind brings it back.
var freshRoots = []string{"/tmp", "/run", "/dev", "/proc"}

// BwrapArgs returns the arguments of bwrap (after the program name) that
// confine r: the mounts, the namespaces, and lnk's init as the first
// process. It reads the file system (what exists, glob matches, protected
// names) but changes nothing.
func BwrapArgs(r *Request) ([]string, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	plan, err := planProtect(r.Policy)
	if err != nil {
		return nil, err
	}
	return bwrapArgs(r, plan)
}

func bwrapArgs(r *Request, plan *protectPlan) ([]string, error) {
	ms, hidden, err := mounts(r.Policy, plan)
	if err != nil {
		return nil, err
	}
	args := []string{"--unshare-all", "--die-with-parent", "--as-pid-1", "--cap-drop", "ALL"}
	if !r.KeepSession {
		args = append(args, "--new-session")
	}
	args = append(args, "--info-fd", "3")
	for _, m := range ms {
		args = append(args, m.args...)
	}
	for _, h := range hidden {
		args = append(args, "--remount-ro", h)
	}
	// lnk's own mounts come last, so nothing masks the socket or binary.
	args = append(args,
		"--ro-bind", r.LnkPath, InnerLnk,
		"--ro-bind", r.ProxySocket, InnerSocket)
	// The browser openers are lnk itself (it answers to their names).
	for _, n := range OpenerNames {
		args = append(args, "--symlink", InnerLnk, OpenerDir+"/"+n)
	}
	args = append(args,
		"--chdir", r.dir(),
		"--", InnerLnk, "sandbox", "init")
	args = append(args, initArgs(r, plan)...)
	args = append(args, "--")
	return append(args, r.Argv...), nil
}

// initArgs are the flags of the inner init: Landlock's exec and write
// rules, the session mode, and the placeholders git should ignore.
func initArgs(r *Request, plan *protectPlan) []string {
	var out []string
	if r.KeepSession {
		out = append(out, "--keep-session")
	}
	for _, d := range spec.SystemExecDirs {
		out = append(out, "--x", d)
	}
	for _, p := range expandAll(r.Policy.Exec) {
		out = append(out, "--x", p)
	}
	out = append(out, "--x", RunDir)
	for _, p := range expandAll(r.Policy.Writable) {
		out = append(out, "--w", p)
	}
	for _, c := range plan.create {
		if rel := ignoreName(c, r.Policy); rel != "" {
			out = append(out, "--git-ignore", rel)
		}
	}
	return out
}

// ignoreName is the path, relative to its writable folder, by which git
// should ignore a file placeholder; "" for folders (git never shows an
// empty one) and for files inside a .git folder.
func ignoreName(c placeholder, p *spec.Policy) string {
	if c.dir || strings.Contains(c.path, "/.git/") {
		return ""
	}
	best := ""
	for _, w := range expandAll(p.Writable) {
		if within(c.path, w) && len(w) > len(best) {
			best = w
		}
	}
	if best == "" || best == c.path {
		return ""
	}
	rel, err := filepath.Rel(best, c.path)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mountSet collects mounts; nothing inside lnk's dirs is ever bound.
type mountSet struct {
	link  []string
	ms    []mount
	tmpfs []string // hidden folders, made read-only after everything inside
}

func (s *mountSet) add(path string, kind int, args ...string) {
	for _, l := range s.link {
		if kind != kLink && within(path, l) {
			return // lnk's dirs are never re-opened, whatever else says
		}
	}
	s.ms = append(s.ms, mount{path, kind, args})
}

// hide hides an existing path: an empty tmpfs for a folder, /dev/null for
// a file. A missing one is a placeholder's job where it matters.
func (s *mountSet) hide(path string, kind int) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
	case fi.IsDir():
		s.add(path, kind, "--tmpfs", path)
		if !contains(s.tmpfs, path) {
			s.tmpfs = append(s.tmpfs, path)
		}
	default:
		s.add(path, kind, "--ro-bind", "/dev/null", path)
	}
}

// mounts returns the ordered mounts, and the hidden tmpfs dirs to make
// read-only once everything inside them is mounted.
func mounts(p *spec.Policy, plan *protectPlan) ([]mount, []string, error) {
	s := &mountSet{link: p.Link, ms: []mount{
		{"/", kBase, []string{"--ro-bind", "/", "/"}},
		{"/dev", kBase, []string{"--dev", "/dev"}},
		{"/proc", kBase, []string{"--proc", "/proc"}},
		{"/tmp", kBase, []string{"--tmpfs", "/tmp"}},
		{"/run", kBase, []string{"--tmpfs", "/run"}},
	}}
	writable, hidden := expandAll(p.Writable), expandAll(p.Hidden)
	for _, h := range hidden {
		if !underAny(h, freshRoots) || deepestIn(h, writable) >= 0 {
			s.hide(h, kHide) // (under a fresh tmpfs it is hidden already)
		}
	}
	for _, w := range writable {
		s.add(w, kWrite, "--bind", w, w)
	}
	for _, a := range expandAll(p.ReadAllow) {
		if deepestIn(a, hidden) >= 0 {
			s.add(a, kRead, "--ro-bind", a, a)
		}
	}
	for _, d := range expandAll(p.WriteDenied) {
		if deepestIn(d, writable) >= 0 {
			s.add(d, kDeny, "--ro-bind", d, d)
		}
	}
	for _, pin := range plan.pin {
		s.add(pin, kPin, "--bind", pin, pin)
	}
	for _, ro := range plan.readOnly {
		s.add(ro, kProtect, "--ro-bind", ro, ro)
	}
	for _, c := range plan.create {
		s.add(c.path, kProtect, "--ro-bind", c.path, c.path)
	}
	for _, l := range p.Link {
		if !underAny(l, freshRoots) || deepestIn(l, writable) >= 0 {
			s.hide(l, kLink)
		}
	}
	sortMounts(s.ms)
	return dedupe(s.ms), s.tmpfs, nil
}

// sortMounts orders by depth, then kind, then path: ancestors first.
func sortMounts(ms []mount) {
	sort.SliceStable(ms, func(i, j int) bool {
		di, dj := depth(ms[i].path), depth(ms[j].path)
		if di != dj {
			return di < dj
		}
		if ms[i].kind != ms[j].kind {
			return ms[i].kind < ms[j].kind
		}
		return ms[i].path < ms[j].path
	})
}

func dedupe(ms []mount) []mount {
	out := ms[:0]
	seen := map[string]bool{}
	for _, m := range ms {
		key := strings.Join(m.args, "\x00")
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, m)
	}
	return out
}

func depth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

// expandAll returns the existing paths of list, globs expanded, sorted.
func expandAll(list []spec.Path) []string {
	var out []string
	for _, p := range list {
		got, err := p.Expand()
		if err != nil {
			continue // a glob that matches too much was refused at resolution
		}
		out = append(out, got...)
	}
	sort.Strings(out)
	return uniq(out)
}

func uniq(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// deepestIn returns the length of the longest root in roots that is path
// or contains it, or -1.
func deepestIn(path string, roots []string) int {
	best := -1
	for _, r := range roots {
		if within(path, r) && len(r) > best {
			best = len(r)
		}
	}
	return best
}

func underAny(path string, roots []string) bool { return deepestIn(path, roots) >= 0 }

// within reports whether path is root or lies inside it.
func within(path, root string) bool {
	if root == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == root || strings.HasPrefix(path, root) && len(path) > len(root) && path[len(root)] == '/'
}

// guardArgs are the flags of the outer guard: the placeholders it makes
// before bwrap starts and removes when the sandbox has ended.
func guardArgs(r *Request, plan *protectPlan) []string {
	var out []string
	if r.KeepSession {
		out = append(out, "--keep-session")
	}
	out = append(out, "--need", r.LnkPath, "--need", r.ProxySocket)
	for _, c := range plan.create {
		kind := "f"
		if c.dir {
			kind = "d"
		}
		out = append(out, "--create", kind+":"+c.path)
	}
	for _, g := range plan.newRepo {
		out = append(out, "--new-repo", g)
	}
	for _, w := range expandAll(r.Policy.Writable) {
		if fi, err := os.Stat(w); err == nil && fi.IsDir() && !underAny(w, r.Policy.Link) {
			out = append(out, "--root", w)
		}
	}
	for _, g := range plan.gitDirs {
		out = append(out, "--git", g)
	}
	return out
}

// commandArgv is the whole argv of the wrapped command: lnk's guard,
// bwrap, init and the command.
func commandArgv(r *Request) ([]string, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	plan, err := planProtect(r.Policy)
	if err != nil {
		return nil, err
	}
	bw, err := bwrapArgs(r, plan)
	if err != nil {
		return nil, err
	}
	bwrap := r.BwrapPath
	if bwrap == "" {
		bwrap = "bwrap"
	}
	argv := []string{r.LnkPath, "sandbox", "init", "--guard"}
	argv = append(argv, guardArgs(r, plan)...)
	argv = append(argv, "--", bwrap)
	return append(argv, bw...), nil
}
