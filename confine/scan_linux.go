package confine

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// afterRun looks, once the sandbox has ended, for git folders the sandbox
// made (any .git in the writable folders, bounded as planProtect's walk,
// and new submodule folders in known repositories) and tidies each: a
// repository made inside the sandbox must not run anything when the
// person uses git in the folder later (see doc.go).
func afterRun(roots, known []string) []string {
	seen := map[string]bool{}
	for _, k := range known {
		if real, err := filepath.EvalSymlinks(k); err == nil {
			seen[real] = true
		}
	}
	var found []string
	add := func(gitDir string) {
		real, err := filepath.EvalSymlinks(gitDir)
		if err != nil || seen[real] || !underAny(real, roots) {
			return
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return
		}
		seen[real] = true
		found = append(found, real)
	}
	for _, r := range roots {
		scanRoot(r, add)
	}
	for _, k := range known {
		scanModules(filepath.Join(k, "modules"), add, 0)
	}
	sort.Strings(found)
	var notes []string
	for _, g := range found {
		notes = append(notes, tidyRepo(g)...)
	}
	return notes
}

// scanRoot finds the .git entries of a writable folder (no links
// followed): folders, links to folders, and files naming their git folder.
func scanRoot(root string, add func(string)) {
	walkBounded(root, func(path, name string, depth int, isDir bool) bool {
		if name != ".git" {
			return name != "node_modules"
		}
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
			if target := gitdirOf(path); target != "" {
				add(target)
			}
			return false
		}
		add(path)
		scanModules(filepath.Join(path, "modules"), add, 0)
		return false
	})
}

// scanModules finds git folders under a repository's modules/.
func scanModules(dir string, add func(string), depth int) {
	ents, err := os.ReadDir(dir)
	if err != nil || depth > 3 || len(ents) > 200 {
		return
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if exists(filepath.Join(sub, "HEAD")) {
			add(sub)
			scanModules(filepath.Join(sub, "modules"), add, depth+1)
			continue
		}
		scanModules(sub, add, depth+1)
	}
}

// gitdirOf reads a .git file ("gitdir: PATH") and returns the folder it
// names, "" if it is not one.
func gitdirOf(path string) string {
	data, err := readOwnFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return ""
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return filepath.Clean(target)
}

// tidyRepo keeps only settings that run nothing in a git folder the
// sandbox made, and removes its hooks (bar git's .sample files), its
// config.worktree and any commondir (which would name another config).
func tidyRepo(gitDir string) []string {
	var notes []string
	cfg := filepath.Join(gitDir, "config")
	if data, err := readOwnFile(cfg); err == nil {
		if clean, dropped := sanitizeGitConfig(data); len(dropped) > 0 {
			tmp := cfg + ".lnk-tmp"
			if os.WriteFile(tmp, clean, 0o644) == nil && os.Rename(tmp, cfg) == nil {
				notes = append(notes, fmt.Sprintf("%s: %s", cfg, strings.Join(dropped, ", ")))
			}
		}
	}
	for _, f := range []string{"config.worktree", "commondir"} {
		if p := filepath.Join(gitDir, f); exists(p) && os.RemoveAll(p) == nil {
			notes = append(notes, p)
		}
	}
	hooks := filepath.Join(gitDir, "hooks")
	if fi, err := os.Lstat(hooks); err == nil && !fi.IsDir() {
		_ = os.Remove(hooks)
		notes = append(notes, hooks)
	} else if ents, err := os.ReadDir(hooks); err == nil {
		for _, e := range ents {
			p := filepath.Join(hooks, e.Name())
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".sample") {
				continue
			}
			if os.RemoveAll(p) == nil {
				notes = append(notes, p)
			}
		}
	}
	return notes
}

// blockNewProtected renames protected names the sandbox created deeper
// than the top of a writable folder (where placeholders cannot stand), so
// nothing reads them as config: NAME becomes NAME.lnk-blocked. Created
// means changed since the sandbox started (existing ones were read-only
// all along); placeholders another sandbox still stands on are left alone.
func blockNewProtected(roots []string, since time.Time) []string {
	single, nested := protectedSets()
	var notes []string
	block := func(path string) {
		var st unix.Stat_t
		if unix.Lstat(path, &st) != nil || time.Unix(st.Ctim.Unix()).Before(since) {
			return
		}
		if _, ok := isPlaceholder(path); ok {
			return
		}
		dst := path + ".lnk-blocked"
		for i := 2; exists(dst) && i < 100; i++ {
			dst = fmt.Sprintf("%s.lnk-blocked-%d", path, i)
		}
		if os.Rename(path, dst) == nil {
			notes = append(notes, path)
		}
	}
	for _, root := range roots {
		walkBounded(root, func(path, name string, depth int, isDir bool) bool {
			switch {
			case depth == 0:
			case single[name]:
				block(path)
				return false
			case nested[name] != nil && isDir && name != ".git":
				for _, c := range nested[name] {
					block(filepath.Join(path, c))
				}
			}
			return name != ".git" && name != "node_modules"
		})
	}
	return notes
}
