package confine

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"lnk.dev/sandbox/spec"
)

// Limits of the walk that finds protected names already in a writable
// folder. Deeper or further ones are not found (see doc.go).
const (
	protectDepth   = 4    // folder levels below each writable folder
	protectEntries = 5000 // directory entries read per writable folder
)

// Placeholder modes: a placeholder is an empty file or folder with exactly
// this mode. The guard adopts one left by a run that was killed.
const (
	placeholderFileMode = 0o444
	placeholderDirMode  = 0o555
)

// placeholder is a path the guard creates (with any missing parents) before
// the sandbox starts, binds read-only, and removes when the sandbox ends.
type placeholder struct {
	path string
	dir  bool
}

// protectPlan says how the wall keeps protected names, and paths that must
// stay absent, from being written or created.
type protectPlan struct {
	readOnly []string      // existing protected paths: bound read-only on themselves
	pin      []string      // parents of protected names: bound on themselves
	create   []placeholder // missing names: placeholders
	newRepo  []string      // .git folders the guard creates (a repository may be made in them)
	gitDirs  []string      // git folders that exist: the guard tidies any other it finds afterwards
}

// dirNames are protected names that are folders.
var dirNames = map[string]bool{
	".git/hooks": true, ".vscode": true, ".idea": true, ".cursor": true,
	".config/fish": true, ".config/git": true, ".claude/commands": true, ".claude/agents": true,
}

// protectedSets splits spec.ProtectedNames into single names and, per
// parent folder name, the names inside it.
func protectedSets() (single map[string]bool, nested map[string][]string) {
	single, nested = map[string]bool{}, map[string][]string{}
	for _, n := range spec.ProtectedNames {
		parent, child, ok := strings.Cut(n, "/")
		if !ok {
			single[n] = true
			continue
		}
		nested[parent] = append(nested[parent], child)
	}
	return single, nested
}

// planProtect walks each writable folder (bounded) and plans the
// protection of protected names, and placeholders for hidden and
// write-denied paths that do not exist inside writable folders.
func planProtect(p *spec.Policy) (*protectPlan, error) {
	plan := &protectPlan{}
	single, nested := protectedSets()
	writable := expandAll(p.Writable)
	for _, w := range writable {
		if fi, err := os.Stat(w); err != nil || !fi.IsDir() || underAny(w, p.Link) {
			continue
		}
		plan.walk(w, single, nested)
	}
	macOnly := filepath.Join(p.Home, "Library") // home secrets only macOS reads
	for _, list := range [][]spec.Path{p.Hidden, p.WriteDenied} {
		for _, h := range list {
			if h.Glob || h.Exists || deepestIn(h.Path, writable) < 0 || coveredByPlaceholder(plan, h.Path) {
				continue
			}
			if h.From == "home secrets" && within(h.Path, macOnly) {
				continue
			}
			// Unknown kind: an empty folder keeps out files and folders alike.
			plan.create = append(plan.create, placeholder{h.Path, true})
		}
	}
	sort.Slice(plan.create, func(i, j int) bool { return plan.create[i].path < plan.create[j].path })
	sort.Strings(plan.readOnly)
	sort.Strings(plan.pin)
	return plan, nil
}

// coveredByPlaceholder reports whether path is a planned placeholder or
// lies inside a planned placeholder folder. Such a folder is empty and
// bound read-only, so nothing can be created inside it, and the guard
// could not create a placeholder in it either (it is mode 0555: for a
// non-root user that is EACCES).
func coveredByPlaceholder(plan *protectPlan, path string) bool {
	for _, c := range plan.create {
		if c.path == path || c.dir && within(path, c.path) {
			return true
		}
	}
	return false
}

// walk plans one writable folder: breadth first, bounded.
func (plan *protectPlan) walk(root string, single map[string]bool, nested map[string][]string) {
	present := map[string]bool{}
	read := walkBounded(root, func(path, name string, depth int, isDir bool) bool {
		if depth == 0 {
			present[name] = true
		}
		return plan.visit(path, name, depth, isDir, single, nested)
	})
	if read {
		plan.missingAtRoot(root, present, single, nested)
	}
}

// visit plans one entry the walk found, and reports whether to descend
// into it (an ordinary folder; never node_modules).
func (plan *protectPlan) visit(path, name string, depth int, isDir bool, single map[string]bool, nested map[string][]string) bool {
	adopt := false
	if nested[name] != nil {
		_, adopt = isPlaceholder(path)
	}
	switch {
	case single[name] || nested[name] != nil && adopt:
		plan.existing(path) // adopts a placeholder a killed run left
	case name == ".git" && isDir && depth == 0 && !exists(filepath.Join(path, "HEAD")) && !exists(filepath.Join(path, "config")):
		// Not a repository (yet): one a killed run's guard made.
		plan.newRepo = append(plan.newRepo, path)
		plan.parent(path, name, nested[name], true)
	case nested[name] != nil && isDir:
		plan.parent(path, name, nested[name], false)
		if name == ".git" {
			plan.gitExtras(path, 0)
		}
	case nested[name] != nil:
		plan.existing(path) // e.g. a worktree's .git file naming its gitdir
	default:
		return isDir && name != "node_modules"
	}
	return false
}

// walkBounded visits the entries of root breadth first, at most
// protectDepth folders deep and protectEntries entries in all, following
// no links; visit returns whether to descend into a folder. It reports
// whether root itself could be read.
func walkBounded(root string, visit func(path, name string, depth int, isDir bool) bool) bool {
	type item struct {
		dir   string
		depth int
	}
	queue := []item{{root, 0}}
	budget := protectEntries
	read := false
	for len(queue) > 0 && budget > 0 {
		it := queue[0]
		queue = queue[1:]
		ents, err := os.ReadDir(it.dir)
		if err != nil {
			continue
		}
		read = read || it.depth == 0
		budget -= len(ents)
		for _, e := range ents {
			path := filepath.Join(it.dir, e.Name())
			if visit(path, e.Name(), it.depth, e.IsDir()) && e.IsDir() && it.depth < protectDepth {
				queue = append(queue, item{path, it.depth + 1})
			}
		}
	}
	return read
}

// existing plans an existing protected path: read-only, unless it is a
// placeholder a killed run left, which is adopted.
func (plan *protectPlan) existing(path string) {
	if dir, ok := isPlaceholder(path); ok {
		plan.create = append(plan.create, placeholder{path, dir})
		return
	}
	plan.readOnly = append(plan.readOnly, path)
}

// parent plans a folder holding protected names (.git, .claude, .config):
// pinned so it cannot be renamed away, its protected children read-only
// or, where missing, placeholders. In a repository the guard creates,
// .git/config is left to git (see doc.go).
func (plan *protectPlan) parent(path, name string, children []string, created bool) {
	plan.pin = append(plan.pin, path)
	for _, c := range children {
		full := filepath.Join(path, c)
		if created && name == ".git" && c == "config" {
			continue
		}
		if _, err := os.Lstat(full); err == nil {
			plan.existing(full)
			continue
		}
		plan.create = append(plan.create, placeholder{full, dirNames[name+"/"+c]})
	}
}

func (plan *protectPlan) missingAtRoot(root string, present map[string]bool, single map[string]bool, nested map[string][]string) {
	for name := range single {
		if !present[name] {
			plan.create = append(plan.create, placeholder{filepath.Join(root, name), dirNames[name]})
		}
	}
	for name, children := range nested {
		if present[name] {
			continue // a file of that name: its children cannot exist
		}
		path := filepath.Join(root, name)
		if name != ".git" {
			// A missing .claude or .config: an empty read-only folder.
			plan.create = append(plan.create, placeholder{path, true})
			continue
		}
		// A missing .git: the guard makes it so git can create a
		// repository in it, with its hooks kept out.
		plan.newRepo = append(plan.newRepo, path)
		plan.parent(path, name, children, true)
	}
}

// gitExtras protects what else in a git folder runs code: its
// config.worktree, and the config and hooks of the submodules' git
// folders under modules/ (whose own modules/ nest).
func (plan *protectPlan) gitExtras(gitDir string, depth int) {
	plan.gitDirs = append(plan.gitDirs, gitDir)
	if cw := filepath.Join(gitDir, "config.worktree"); exists(cw) {
		plan.readOnly = append(plan.readOnly, cw)
	}
	if depth > 3 {
		return
	}
	ents, err := os.ReadDir(filepath.Join(gitDir, "modules"))
	if err != nil || len(ents) > 200 {
		return
	}
	for _, e := range ents {
		sub := filepath.Join(gitDir, "modules", e.Name())
		if !e.IsDir() {
			continue
		}
		if !exists(filepath.Join(sub, "HEAD")) {
			plan.gitExtras(sub, depth+1) // a module named a/b: modules/a/b
			continue
		}
		plan.parent(sub, ".git", []string{"config", "hooks"}, false)
		plan.gitExtras(sub, depth+1)
	}
}

// isPlaceholder reports whether path is an empty file or folder with a
// placeholder's mode, and whether it is a folder.
func isPlaceholder(path string) (dir, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return false, false
	}
	switch {
	case fi.Mode().IsRegular():
		return false, fi.Size() == 0 && fi.Mode().Perm() == placeholderFileMode
	case fi.IsDir():
		if fi.Mode().Perm() != placeholderDirMode {
			return true, false
		}
		ents, err := os.ReadDir(path)
		return true, err == nil && len(ents) == 0
	}
	return false, false
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
