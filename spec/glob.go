package spec

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// maxGlobMatches bounds what one glob may expand to, so a "**" over a huge
// tree fails loudly instead of making a wall with a million mounts.
const maxGlobMatches = 1000

// maxGlobVisits bounds the entries a "**" walk looks at.
const maxGlobVisits = 200000

// globMatch reports whether the absolute path p matches the anchored
// pattern pat, where "**" matches zero or more whole components, and
// whether any path inside a match also matches (a match covers its
// subtree).
func globMatch(pat, p string) bool {
	pc := strings.Split(strings.TrimPrefix(pat, "/"), "/")
	xc := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for n := 1; n <= len(xc); n++ {
		if matchComps(pc, xc[:n]) {
			return true
		}
	}
	return false
}

func matchComps(pat, comps []string) bool {
	if len(pat) == 0 {
		return len(comps) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(comps); i++ {
			if matchComps(pat[1:], comps[i:]) {
				return true
			}
		}
		return false
	}
	if len(comps) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], comps[0])
	return err == nil && ok && matchComps(pat[1:], comps[1:])
}

// ErrTooManyMatches is returned by Expand when a glob matches more than
// maxGlobMatches paths or needs too large a walk.
var ErrTooManyMatches = errors.New("glob matches too many paths: make it narrower")

// Expand returns the existing paths a glob Path matches now, sorted; for a
// plain Path, the path itself if it exists.
func (p Path) Expand() ([]string, error) {
	if !p.Glob {
		if p.Exists {
			return []string{p.Path}, nil
		}
		return nil, nil
	}
	comps := strings.Split(strings.TrimPrefix(p.Path, "/"), "/")
	base := "/"
	i := 0
	for ; i < len(comps) && !hasGlob(comps[i]) && comps[i] != "**"; i++ {
		base = filepath.Join(base, comps[i])
	}
	var out []string
	visits := 0
	err := filepath.WalkDir(base, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			if q == base {
				return fs.SkipAll
			}
			return nil
		}
		visits++
		if visits > maxGlobVisits {
			return ErrTooManyMatches
		}
		if q != base && matchComps(comps, strings.Split(strings.TrimPrefix(q, "/"), "/")) {
			out = append(out, q)
			if len(out) > maxGlobMatches {
				return ErrTooManyMatches
			}
			if d.IsDir() {
				return fs.SkipDir // a match covers its subtree
			}
			return nil
		}
		// WalkDir never follows links, so a link to a folder is not walked.
		if d.IsDir() && q != base && !canDescend(comps[i:], strings.Split(strings.TrimPrefix(strings.TrimPrefix(q, base), "/"), "/")) {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) {
		return nil, err
	}
	return out, nil
}

// canDescend reports whether some path under the relative components rel
// could still match the pattern components pat.
func canDescend(pat, rel []string) bool {
	for i, c := range rel {
		if i >= len(pat) {
			return false
		}
		if pat[i] == "**" {
			return true
		}
		if ok, _ := path.Match(pat[i], c); !ok {
			return false
		}
	}
	return true
}
