package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Env is what resolution needs to know about the machine and the caller.
type Env struct {
	Home   string   // the person's home folder, absolute
	Folder string   // the sandbox's folder, absolute
	Path   string   // $PATH, for bare program names in commands.allow
	Link   LinkDirs // lnk's own dirs
}

// OSEnv returns the Env of this process for a sandbox folder (made
// absolute against the working directory).
func OSEnv(folder string) (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, fmt.Errorf("cannot find your home folder: set HOME")
	}
	if folder == "" {
		folder = "."
	}
	abs, err := filepath.Abs(folder)
	if err != nil {
		return Env{}, fmt.Errorf("folder %q: %v", folder, err)
	}
	return Env{
		Home:   home,
		Folder: abs,
		Path:   os.Getenv("PATH"),
		Link: DefaultLinkDirs(home, os.Getenv("XDG_CONFIG_HOME"), os.Getenv("XDG_STATE_HOME"),
			os.Getenv("XDG_CACHE_HOME"), os.Getenv("XDG_RUNTIME_DIR")),
	}, nil
}

// Resolve turns a parsed spec into a Policy for env. It reads the machine
// (which paths exist, what they link to) and refuses what a careful reader
// would: a folder or granted path that is itself a symlink, or that passes
// through a symlink leading out of the folder that holds it, and any grant
// that would open lnk's own dirs. Missing paths are skipped with a note.
// source names the spec in errors ("default" for the embedded one).
func Resolve(s *Spec, source string, env Env) (*Policy, error) {
	r := resolver{s: s, src: source}
	if !filepath.IsAbs(env.Home) || !filepath.IsAbs(env.Folder) {
		return nil, errors.New("resolve: home and folder must be absolute paths")
	}
	home, err := filepath.EvalSymlinks(env.Home)
	if err != nil {
		return nil, fmt.Errorf("home folder %s: %v", env.Home, unwrapPathErr(err))
	}
	r.home = home
	folder, exists, err := checkGrant(filepath.Clean(env.Folder))
	switch {
	case err != nil:
		return nil, fmt.Errorf("folder %s: %v", env.Folder, err)
	case !exists:
		return nil, fmt.Errorf("folder %s does not exist: create it or name another with --folder", env.Folder)
	}
	if fi, err := os.Stat(folder); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("folder %s is not a folder: name a folder with --folder", env.Folder)
	}
	r.folder = folder
	p := &Policy{Source: source, Home: home, Folder: folder, Protected: ProtectedNames, DeveloperTools: s.Commands.MacOS.DeveloperTools}

	for _, d := range env.Link.List() {
		p.Link = appendUnique(p.Link, filepath.Clean(d))
		if real, ok := realIfExists(d); ok {
			p.Link = appendUnique(p.Link, real)
		}
	}
	fsx := s.Filesystem
	p.Writable = r.grants("filesystem.allow_write", fsx.AllowWrite, &p.Notes)
	for _, w := range p.Writable {
		if under(w.Path, p.Link) {
			r.errs = append(r.errs, r.errf(w.From, "%s is lnk's own settings: a sandbox may never write it", w.Path))
		}
	}
	p.ReadAllow = r.grants("filesystem.allow_read", fsx.AllowRead, &p.Notes)
	p.WriteDenied = r.denies("filesystem.deny_write", fsx.DenyWrite)
	p.Hidden = r.denies("filesystem.deny_read", fsx.DenyRead)
	var secrets []string
	for _, s := range HomeSecrets {
		secrets = append(secrets, filepath.Join(r.home, s))
	}
	p.Hidden = append(p.Hidden, r.builtinDenies("home secrets", secrets, p.Writable)...)
	p.Hidden = append(p.Hidden, r.builtinDenies("lnk", p.Link, p.Writable)...)
	p.Exec = r.programs("commands.allow", s.Commands.Allow, env.Path, &p.Notes)
	p.Network = compileNetwork(&s.Network)
	if len(r.errs) > 0 {
		return nil, errors.Join(r.errs...)
	}
	return p, nil
}

type resolver struct {
	s            *Spec
	src          string
	home, folder string
	errs         []error
}

// errf makes an error for key (such as "filesystem.allow_write[2]"),
// located in the spec's text when it has one.
func (r *resolver) errf(key, format string, args ...any) error {
	e := &Error{File: r.src, Key: key, Msg: fmt.Sprintf(format, args...)}
	if r.s.src != nil {
		name, idx, _ := strings.Cut(strings.TrimSuffix(key, "]"), "[")
		e.Line = keyLine(r.s.src, strings.Split(name, "."))
		if i, err := strconv.Atoi(idx); err == nil {
			e.Line = elemLine(r.s.src, e.Line, i)
		}
	}
	return e
}

// abs makes a spec path absolute: "~" against home, relative against the
// folder.
func (r *resolver) abs(p string) string {
	switch {
	case p == "~":
		return r.home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(r.home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(r.folder, p)
}

// grants resolves paths that open something: each must not be, or pass
// through, a symlink that leads elsewhere.
func (r *resolver) grants(key string, list []string, notes *[]string) []Path {
	var out []Path
	for i, raw := range list {
		k := fmt.Sprintf("%s[%d]", key, i)
		a := r.abs(raw)
		if hasGlob(raw) {
			base, rest := splitGlob(a)
			real, _, err := checkGrant(base)
			if err != nil {
				r.errs = append(r.errs, r.errf(k, "%v", err))
				continue
			}
			out = append(out, Path{Path: filepath.Join(real, rest), Glob: true, From: k})
			continue
		}
		real, exists, err := checkGrant(a)
		if err != nil {
			r.errs = append(r.errs, r.errf(k, "%v", err))
			continue
		}
		if !exists {
			*notes = append(*notes, fmt.Sprintf("%s: %s does not exist, skipped", k, a))
			continue
		}
		out = append(out, statPath(real, k))
	}
	return out
}

// denies resolves the spec's own closing paths (key such as
// "filesystem.deny_read"): both the path as named and where its links lead
// are closed, and a missing path is kept (a wall keeps it absent).
func (r *resolver) denies(key string, list []string) []Path {
	var out []Path
	for i, raw := range list {
		out = r.deny(out, fmt.Sprintf("%s[%d]", key, i), raw, true)
	}
	return out
}

// builtinDenies resolves paths every sandbox closes (home's secrets, lnk's
// own dirs), named from. A missing one is kept only inside a writable path,
// the one place the sandbox could create it.
func (r *resolver) builtinDenies(from string, list []string, writable []Path) []Path {
	var out []Path
	for _, raw := range list {
		out = r.deny(out, from, raw, deepest(r.abs(raw), writable) >= 0)
	}
	return out
}

// deny appends to out the closing path raw and, if it is a link, where it
// leads.
func (r *resolver) deny(out []Path, from, raw string, keepMissing bool) []Path {
	a := r.abs(raw)
	if hasGlob(raw) {
		return append(out, Path{Path: a, Glob: true, From: from})
	}
	p := statPath(a, from)
	if !p.Exists && !keepMissing {
		return out
	}
	out = appendPath(out, p)
	if real, ok := realIfExists(a); ok && real != a {
		out = appendPath(out, statPath(real, from))
	}
	return out
}

// programs resolves commands.allow: bare names on PATH, paths as in
// [filesystem]. Links are followed (the program that runs is the target),
// and both the link and its target are allowed.
func (r *resolver) programs(key string, list []string, pathList string, notes *[]string) []Path {
	var out []Path
	for i, raw := range list {
		k := fmt.Sprintf("%s[%d]", key, i)
		a := ""
		if !strings.ContainsRune(raw, '/') && raw != "." && raw != "~" && raw != ".." {
			a = lookPath(raw, pathList)
			if a == "" {
				*notes = append(*notes, fmt.Sprintf("%s: %q is not on PATH, skipped", k, raw))
				continue
			}
		} else {
			a = r.abs(raw)
		}
		if hasGlob(raw) {
			out = append(out, Path{Path: a, Glob: true, From: k})
			continue
		}
		p := statPath(a, k)
		if !p.Exists {
			*notes = append(*notes, fmt.Sprintf("%s: %s does not exist, skipped", k, a))
			continue
		}
		out = appendPath(out, p)
		if real, ok := realIfExists(a); ok && real != a {
			out = appendPath(out, statPath(real, k))
		}
	}
	return out
}

func lookPath(name, pathList string) string {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would depend on the cwd
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// checkGrant walks the absolute clean path p component by component. It
// refuses p if its last component is a symlink, or if an earlier component
// is a symlink leading outside the folder that holds the link. It returns
// the real path, and whether it exists.
func checkGrant(p string) (string, bool, error) {
	cur := "/"
	comps := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, c := range comps {
		if c == "" {
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(append([]string{cur}, comps[i:]...)...), false, nil
		}
		if err != nil {
			return "", false, fmt.Errorf("%s: %v", next, unwrapPathErr(err))
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := filepath.EvalSymlinks(next)
		if err != nil {
			return "", false, fmt.Errorf("%s is a broken symlink: remove it or name the real path", next)
		}
		if i == len(comps)-1 {
			return "", false, fmt.Errorf("%s is a symlink to %s: links are not followed; name %s itself if that is what you mean", next, target, target)
		}
		if !within(target, cur) {
			return "", false, fmt.Errorf("%s passes through the symlink %s, which leads out of %s to %s: name the real path", p, next, cur, target)
		}
		cur = target
	}
	return cur, true, nil
}

func realIfExists(p string) (string, bool) {
	real, err := filepath.EvalSymlinks(p)
	return real, err == nil
}

func statPath(p, from string) Path {
	fi, err := os.Stat(p)
	return Path{Path: p, From: from, Exists: err == nil, Dir: err == nil && fi.IsDir()}
}

func splitGlob(p string) (base, rest string) {
	comps := strings.Split(strings.TrimPrefix(p, "/"), "/")
	i := 0
	for ; i < len(comps) && !hasGlob(comps[i]); i++ {
	}
	return "/" + filepath.Join(comps[:i]...), filepath.Join(comps[i:]...)
}

func appendPath(list []Path, p Path) []Path {
	for _, q := range list {
		if q.Path == p.Path {
			return list
		}
	}
	return append(list, p)
}

func appendUnique(list []string, s string) []string {
	for _, q := range list {
		if q == s {
			return list
		}
	}
	return append(list, s)
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// compileNetwork compiles a validated [network] section.
func compileNetwork(n *Network) NetworkPolicy {
	np := NetworkPolicy{Mode: n.Mode, Endpoints: n.Endpoints, Tools: n.Tools}
	if np.Mode == "" {
		np.Mode = ModeProxy
	}
	for _, h := range n.Hosts {
		if p, err := ParseHostPattern(h); err == nil {
			np.Hosts = append(np.Hosts, p)
		}
	}
	for _, h := range n.Deny {
		if p, err := ParseDenyPattern(h); err == nil {
			np.Deny = append(np.Deny, p)
		}
	}
	for _, l := range n.LAN.Allow {
		if r, err := ParseLANRule(l); err == nil {
			np.LAN = append(np.LAN, r)
		}
	}
	return np
}
