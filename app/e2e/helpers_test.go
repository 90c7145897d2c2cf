//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/build/testenv"
)

// lnkBin is the lnk binary built by TestMain.
var lnkBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lnk-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lnkBin = filepath.Join(dir, "lnk")
	out, err := exec.Command("go", "build", "-o", lnkBin, "lnk.dev/sandbox/app/lnk").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go build app/lnk: %v\n%s", err, out)
		os.Exit(1)
	}
	// Others (the second user) must be able to run it.
	os.Chmod(dir, 0o755)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// world is one person's machine: a fresh HOME and runtime folder.
type world struct {
	t       *testing.T
	root    string // short temp folder holding everything
	home    string
	folder  string // home/project: where lnk runs, the sandbox's folder
	runtime string // XDG_RUNTIME_DIR; "" = none (lnk falls back to its cache)
	// extraEnv is added to every lnk call's environment (e.g. DISPLAY).
	extraEnv []string
}

// newWorld makes a fresh world and kills its daemon when the test ends.
// withRuntime false leaves XDG_RUNTIME_DIR unset.
func newWorld(t *testing.T, withRuntime bool) *world {
	t.Helper()
	testenv.NeedBwrap(t)
	root, err := os.MkdirTemp("/tmp", "lnke")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(root, 0o755)
	w := &world{t: t, root: root, home: filepath.Join(root, "home")}
	w.folder = filepath.Join(w.home, "project")
	if err := os.Mkdir(w.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(w.folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if withRuntime {
		w.runtime = filepath.Join(root, "run")
		if err := os.Mkdir(w.runtime, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		w.killDaemon(syscall.SIGTERM)
		w.killStragglers()
		os.RemoveAll(root)
	})
	return w
}

// paths are lnk's folders in this world.
func (w *world) paths() apitype.Paths {
	t := w.t
	t.Helper()
	old := map[string]string{}
	for _, k := range []string{"HOME", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"} {
		old[k] = os.Getenv(k)
	}
	defer func() {
		for k, v := range old {
			os.Setenv(k, v)
		}
	}()
	os.Setenv("HOME", w.home)
	os.Setenv("XDG_RUNTIME_DIR", w.runtime)
	for _, k := range []string{"XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"} {
		os.Unsetenv(k)
	}
	p, err := apitype.DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (w *world) env() []string {
	env := []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	if w.runtime != "" {
		env = append(env, "XDG_RUNTIME_DIR="+w.runtime)
	}
	return append(env, w.extraEnv...)
}

// result is what one lnk call did.
type result struct {
	stdout, stderr string
	code           int
}

// lnk runs `lnk sandbox ARGS...` in the project folder, bounded to a
// minute.
func (w *world) lnk(args ...string) result {
	w.t.Helper()
	return w.lnkIn(w.folder, args...)
}

// lnkIn runs `lnk sandbox ARGS...` in dir.
func (w *world) lnkIn(dir string, args ...string) result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lnkBin, append([]string{"sandbox"}, args...)...)
	cmd.Env, cmd.Dir = w.env(), dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("lnk %v: %v", args, err)
	}
	return r
}

// must runs lnk and fails the test unless it exits 0.
func (w *world) must(args ...string) string {
	w.t.Helper()
	r := w.lnk(args...)
	if r.code != 0 {
		w.t.Fatalf("lnk %v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// daemonPID reads the running daemon's pid from its lock file, or 0.
func (w *world) daemonPID() int {
	b, err := os.ReadFile(filepath.Join(w.paths().Runtime, "daemon.lock"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// killDaemon signals the daemon and waits (bounded) for it to go; a
// daemon that does not go on SIGTERM gets SIGKILL.
func (w *world) killDaemon(sig syscall.Signal) {
	pid := w.daemonPID()
	if pid <= 0 || !alive(pid) {
		return
	}
	syscall.Kill(pid, sig)
	if waitGone(pid, 5*time.Second) {
		return
	}
	syscall.Kill(pid, syscall.SIGKILL)
	if !waitGone(pid, 5*time.Second) {
		w.t.Errorf("daemon pid %d survived SIGKILL", pid)
	}
}

// killStragglers kills, by pid, any other daemon of this world: one a
// verb started that lost the start race, or that took the lock after the
// first was killed.
func (w *world) killStragglers() {
	marker := "--socket\x00" + filepath.Join(w.paths().Runtime, "control.sock") + "\x00"
	for i := 0; i < 20; i++ {
		pids := processesWith(marker)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
			waitGone(pid, 2*time.Second)
		}
		time.Sleep(50 * time.Millisecond)
	}
	w.t.Errorf("daemons of %s survived SIGKILL", w.root)
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return !alive(pid)
}

// list returns the daemon's registry.
func (w *world) list() []apitype.Sandbox {
	w.t.Helper()
	var l []apitype.Sandbox
	if err := json.Unmarshal([]byte(w.must("list", "--json")), &l); err != nil {
		w.t.Fatal(err)
	}
	return l
}

func (w *world) sandbox(id string) apitype.Sandbox {
	w.t.Helper()
	for _, s := range w.list() {
		if s.ID == id {
			return s
		}
	}
	w.t.Fatalf("sandbox %s is not listed", id)
	return apitype.Sandbox{}
}

// waitState waits (bounded) for the sandbox to reach state.
func (w *world) waitState(id, state string) apitype.Sandbox {
	w.t.Helper()
	var s apitype.Sandbox
	for i := 0; i < 150; i++ {
		if s = w.sandbox(id); s.State == state {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.t.Fatalf("sandbox %s is %s, want %s", id, s.State, state)
	return s
}

// proc is a wrapped command started as a harness would start it.
type proc struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error
}

// startWrapped asks for a wrapped command and starts it the way a harness
// would: argv, exactly env, in dir.
func (w *world) startWrapped(args ...string) (*apitype.WrapResponse, *proc) {
	w.t.Helper()
	var resp apitype.WrapResponse
	if err := json.Unmarshal([]byte(w.must(append([]string{"wrap", "--json"}, args...)...)), &resp); err != nil {
		w.t.Fatal(err)
	}
	p := &proc{cmd: exec.Command(resp.Argv[0], resp.Argv[1:]...), out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Env, p.cmd.Dir = resp.Env, resp.Dir
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	w.t.Cleanup(func() {
		p.cmd.Process.Kill()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
		}
	})
	return &resp, p
}

// wait waits (bounded) for the command to end and returns its exit code.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		t.Fatalf("the wrapped command did not end within %v; output:\n%s", d, p.out)
	}
	if p.err == nil {
		return 0
	}
	ee, ok := p.err.(*exec.ExitError)
	if !ok {
		t.Fatalf("wrapped command: %v", p.err)
	}
	return ee.ExitCode()
}

// writeSpec writes a spec file in HOME and returns its path.
func (w *world) writeSpec(text string) string {
	w.t.Helper()
	p := filepath.Join(w.root, "spec.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}
