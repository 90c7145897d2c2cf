package confine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// made is something the guard created (or adopted) on the host, to remove
// afterwards. The guard holds a shared flock on it while the sandbox runs:
// a second sandbox using the same placeholder holds one too, and the
// first to end leaves it in place (removing it would lift the second's
// mount), the last removes it.
type made struct {
	path  string
	dir   bool
	ino   uint64
	place bool     // a placeholder (removed if still empty); else a parent (removed if empty)
	lock  *os.File // the shared flock; nil if it could not be taken
}

// track records m with a shared lock on it.
func track(ms []made, m made) []made {
	flags := os.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if m.dir {
		flags |= unix.O_DIRECTORY
	}
	m.ino = inode(m.path)
	if f, err := os.OpenFile(m.path, flags, 0); err == nil {
		var st unix.Stat_t
		if unix.Flock(int(f.Fd()), unix.LOCK_SH) == nil && unix.Fstat(int(f.Fd()), &st) == nil {
			m.lock, m.ino = f, st.Ino
		} else {
			f.Close()
		}
	}
	return append(ms, m)
}

type guardOpts struct {
	keepSession bool
	create      []placeholder
	newRepo     []string
	need        []string // host paths bwrap binds in: checked first
	roots       []string // writable folders: scanned for new git folders afterwards
	known       []string // git folders that existed before the run
	argv        []string
}

func parseGuardArgs(args []string) (*guardOpts, error) {
	o := &guardOpts{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			o.argv = args[i+1:]
			if len(o.argv) == 0 {
				return nil, errors.New("guard: no bwrap command after --")
			}
			return o, nil
		case a == "--keep-session":
			o.keepSession = true
		case i+1 >= len(args):
			return nil, fmt.Errorf("guard: %s needs a value", a)
		case a == "--create":
			i++
			kind, path, ok := strings.Cut(args[i], ":")
			if !ok || (kind != "f" && kind != "d") || !filepath.IsAbs(path) {
				return nil, fmt.Errorf("guard: bad --create %q", args[i])
			}
			o.create = append(o.create, placeholder{filepath.Clean(path), kind == "d"})
		case a == "--need":
			i++
			o.need = append(o.need, args[i])
		case a == "--root":
			i++
			o.roots = append(o.roots, args[i])
		case a == "--git":
			i++
			o.known = append(o.known, args[i])
		case a == "--new-repo":
			i++
			if !filepath.IsAbs(args[i]) {
				return nil, fmt.Errorf("guard: bad --new-repo %q", args[i])
			}
			o.newRepo = append(o.newRepo, filepath.Clean(args[i]))
		default:
			return nil, fmt.Errorf("guard: unknown flag %s", a)
		}
	}
	return nil, errors.New("guard: no bwrap command after --")
}

// runGuard runs outside the wall: it makes the placeholders, runs bwrap,
// passes signals to init, and when the sandbox has ended removes what it
// made and tidies the config of a repository the sandbox created.
func runGuard(args []string) int {
	o, err := parseGuardArgs(args)
	if err != nil {
		return initFail("%v: this is lnk's own command line, run through lnk sandbox run", err)
	}
	for _, n := range o.need {
		if _, err := os.Stat(n); err != nil {
			return initFail("%s is gone (%v): the sandbox's proxy or lnk itself is not there; the command did not run; check that lnk's daemon runs", n, err)
		}
	}
	var ms []made
	defer func() { cleanup(ms) }()
	for _, g := range o.newRepo {
		if fi, err := os.Lstat(g); err == nil && fi.IsDir() && !exists(filepath.Join(g, "HEAD")) && !exists(filepath.Join(g, "config")) {
			ms = track(ms, made{path: g, dir: true}) // adopted: removed if empty
			continue
		}
		if ms, err = makeDir(ms, g, 0o755, false); err != nil {
			return initFail("cannot prepare %s: %v: the command did not run", g, err)
		}
	}
	for _, c := range o.create {
		if ms, err = makePlaceholder(ms, c); err != nil {
			return initFail("cannot protect %s: %v: the command did not run", c.path, err)
		}
	}
	start := time.Now()
	code := runBwrap(o)
	cleanup(ms)
	ms = nil
	if notes := afterRun(o.roots, o.known); len(notes) > 0 {
		fmt.Fprintf(os.Stderr, "lnk: tidied git folders the sandbox made, so nothing in them runs outside it: %s\n", strings.Join(notes, "; "))
	}
	if notes := blockNewProtected(o.roots, start); len(notes) > 0 {
		fmt.Fprintf(os.Stderr, "lnk: the sandbox created protected files; renamed each to NAME.lnk-blocked so nothing reads them: %s\n", strings.Join(notes, ", "))
	}
	return code
}

// runBwrap starts bwrap with the terminal's SIGINT and SIGQUIT ignored
// (so they do not kill bwrap and, with it, the sandbox), then forwards
// signals to init by the pid bwrap reports on fd 3.
func runBwrap(o *guardOpts) int {
	pr, pw, err := os.Pipe()
	if err != nil {
		return initFail("guard: %v", err)
	}
	signal.Ignore(unix.SIGINT, unix.SIGQUIT)
	// bwrap dies with the guard (Pdeathsig follows the forking thread,
	// so that thread is kept for good).
	runtime.LockOSThread()
	cmd := exec.Command(o.argv[0], o.argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{pw}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return initFail("cannot start bwrap (%v): install the bubblewrap package", err)
	}
	pw.Close()
	var initPid atomic.Int64
	go func() {
		var info struct {
			Pid int `json:"child-pid"`
		}
		data, _ := io.ReadAll(io.LimitReader(pr, 4096))
		pr.Close()
		if json.Unmarshal(bytes.TrimSpace(firstLine(data)), &info) == nil {
			initPid.Store(int64(info.Pid))
		}
	}()
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, unix.SIGINT, unix.SIGQUIT, unix.SIGTERM, unix.SIGHUP, unix.SIGUSR1, unix.SIGUSR2)
	defer signal.Stop(sigs)
	go func() {
		for s := range sigs {
			if o.keepSession && (s == unix.SIGINT || s == unix.SIGQUIT) {
				continue // the terminal sends these to the command itself
			}
			if pid := int(initPid.Load()); pid > 0 {
				_ = unix.Kill(pid, s.(syscall.Signal))
			} else {
				_ = cmd.Process.Signal(s)
			}
		}
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return initFail("bwrap: %v", err)
}

func firstLine(b []byte) []byte {
	// bwrap writes one JSON object; take the first.
	if i := bytes.IndexByte(b, '}'); i >= 0 {
		return b[:i+1]
	}
	return b
}

// makeDir creates dir and its missing parents, recording each it made.
func makeDir(ms []made, dir string, mode os.FileMode, place bool) ([]made, error) {
	if _, err := os.Lstat(dir); err == nil {
		return ms, nil
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		var err error
		if ms, err = makeDir(ms, parent, 0o755, false); err != nil {
			return ms, err
		}
	}
	if err := os.Mkdir(dir, mode); errors.Is(err, os.ErrExist) {
		return adopt(ms, dir, place), nil // made meanwhile by a sandbox starting beside this one
	} else if err != nil {
		return ms, err
	}
	if err := os.Chmod(dir, mode); err != nil { // umask
		return ms, err
	}
	return track(ms, made{path: dir, dir: true, place: place}), nil
}

// makePlaceholder creates an empty read-only file or folder at c.path, or
// adopts one a killed run left; an existing real file is left alone (the
// wall binds it read-only).
func makePlaceholder(ms []made, c placeholder) ([]made, error) {
	// A guard ending beside this one may remove a placeholder between our
	// look and our lock: then make it again (a few times at most).
	for try := 0; try < 3; try++ {
		if _, err := os.Lstat(c.path); err != nil {
			break
		}
		if _, ok := isPlaceholder(c.path); !ok {
			return ms, nil // the person's own: the wall binds it read-only
		}
		n := len(ms)
		if ms = adopt(ms, c.path, true); len(ms) > n && ms[n].held() {
			return ms, nil
		}
		ms = ms[:n]
	}
	var err error
	if ms, err = makeDir(ms, filepath.Dir(c.path), 0o755, false); err != nil {
		return ms, err
	}
	// Never through a symlink: the placeholder must land where the wall
	// binds it, not in some folder a link points at.
	if real, err := filepath.EvalSymlinks(filepath.Dir(c.path)); err != nil || real != filepath.Dir(c.path) {
		return ms, errors.New("its folder is, or passes through, a symlink")
	}
	if c.dir {
		return makeDir(ms, c.path, placeholderDirMode, true)
	}
	f, err := os.OpenFile(c.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, placeholderFileMode)
	if errors.Is(err, os.ErrExist) {
		return adopt(ms, c.path, true), nil // made meanwhile by a sandbox starting beside this one
	} else if err != nil {
		return ms, err
	}
	f.Close()
	if err := os.Chmod(c.path, placeholderFileMode); err != nil {
		return ms, err
	}
	return track(ms, made{path: c.path, place: true}), nil
}

// held reports whether m's lock is on the inode now at m.path.
func (m made) held() bool {
	if m.lock == nil {
		return false
	}
	var st unix.Stat_t
	return unix.Fstat(int(m.lock.Fd()), &st) == nil && st.Ino == m.ino && inode(m.path) == m.ino
}

// adopt records an existing placeholder (only a placeholder: anything
// else there is the person's, and the wall binds it read-only).
func adopt(ms []made, path string, place bool) []made {
	if !place {
		return ms
	}
	if dir, ok := isPlaceholder(path); ok {
		return track(ms, made{path: path, dir: dir, place: true})
	}
	return ms
}

// cleanup removes, newest first, what the guard made, if it is still the
// same, empty file or folder.
func cleanup(ms []made) {
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		if m.lock != nil {
			busy := unix.Flock(int(m.lock.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil
			defer m.lock.Close()
			if busy {
				continue // another sandbox still stands on it
			}
		}
		if inode(m.path) != m.ino {
			continue
		}
		if m.place && !m.dir {
			if fi, err := os.Lstat(m.path); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
				_ = os.Remove(m.path)
			}
			continue
		}
		if m.place {
			_ = os.Chmod(m.path, 0o755)
		}
		if err := unix.Rmdir(m.path); err != nil && m.place {
			_ = os.Chmod(m.path, placeholderDirMode)
		}
	}
}

// readOwnFile reads a regular file the sandbox made: not a symlink, not a
// hard link to another file, not large. A config that is anything else is
// removed (the sandbox made it; git works without one).
func readOwnFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			_ = os.Remove(path)
		}
		return nil, err
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 || st.Size > 1<<20 {
		_ = os.Remove(path)
		return nil, errors.New("not a plain file")
	}
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

func inode(path string) uint64 {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return 0
	}
	return st.Ino
}
