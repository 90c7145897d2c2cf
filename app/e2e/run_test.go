//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
)

// A fresh machine: no daemon, no set-up. run starts the daemon itself.
func TestRunAutoStartsDaemon(t *testing.T) {
	w := newWorld(t, true)
	if pid := w.daemonPID(); pid != 0 {
		t.Fatalf("a daemon runs before the first call: %d", pid)
	}
	// status says so, and starts nothing.
	if out := w.must("status"); !strings.Contains(out, "not running") || w.daemonPID() != 0 {
		t.Errorf("status without a daemon: %q (daemon pid %d)", out, w.daemonPID())
	}
	r := w.lnk("run", "--", "true")
	if r.code != 0 {
		t.Fatalf("run -- true: exit %d: %s", r.code, r.stderr)
	}
	pid := w.daemonPID()
	if pid == 0 || !alive(pid) {
		t.Fatal("run did not leave a daemon running")
	}
	if r := w.lnk("run", "--", "sh", "-c", "exit 7"); r.code != 7 {
		t.Errorf("exit code not mirrored: %d (%s)", r.code, r.stderr)
	}
	if r := w.lnk("run", "--", "sh", "-c", "kill -TERM $$"); r.code != 128+15 {
		t.Errorf("a signalled command gave %d, want 143 (%s)", r.code, r.stderr)
	}
	if r := w.lnk("run", "--", "sh", "-c", "echo out; echo err >&2"); r.stdout != "out\n" || !strings.Contains(r.stderr, "err") {
		t.Errorf("stdio not passed straight through: %q %q", r.stdout, r.stderr)
	}
	// The same daemon served every call.
	if got := w.daemonPID(); got != pid {
		t.Errorf("daemon pid changed from %d to %d", pid, got)
	}
	st := w.must("status")
	if !strings.Contains(st, "running") || !strings.Contains(st, filepath.Join(w.runtime, "lnk", "control.sock")) {
		t.Errorf("status: %s", st)
	}
	// A second daemon finds the first and says so.
	r = w.lnk("daemon")
	if r.code != 125 || !strings.Contains(r.stderr, "already running") {
		t.Errorf("second daemon: exit %d: %s", r.code, r.stderr)
	}
	// lnk's own failures: one line, "lnk: what: how", exit 125 or 1 or 2.
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"run", "--spec", "/nonexistent.toml", "--", "true"}, 1},
		{[]string{"run"}, 2},
		{[]string{"stop", "nosuchid"}, 1},
		{[]string{"pause"}, 2},
	} {
		r := w.lnk(c.args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != c.code || !strings.HasPrefix(lines[len(lines)-1], "lnk: ") || !strings.Contains(lines[len(lines)-1], ": ") {
			t.Errorf("lnk %v: exit %d, want %d; stderr %q", c.args, r.code, c.code, r.stderr)
		}
	}
	// Without XDG_RUNTIME_DIR the daemon uses lnk's cache folder.
	w2 := newWorld(t, false)
	w2.must("run", "--", "true")
	if _, err := os.Stat(filepath.Join(w2.home, ".cache", "lnk", "run", "control.sock")); err != nil {
		t.Errorf("no socket in the cache fallback: %v", err)
	}
}

// A harness runs what wrap --json gives it, itself.
func TestWrapJSONRunByHarness(t *testing.T) {
	w := newWorld(t, true)
	resp, p := w.startWrapped("--name", "harness-test", "--", "sh", "-c", `echo "id=$LNK_SANDBOX dir=$(pwd)"`)
	if code := p.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d: %s", code, p.out)
	}
	if want := "id=" + resp.ID + " dir=" + w.folder + "\n"; p.out.String() != want {
		t.Errorf("output %q, want %q", p.out, want)
	}
	s := w.waitState(resp.ID, apitype.StateExited)
	if s.Name != "harness-test" || s.ExitCode == nil || *s.ExitCode != 0 || s.Folder != w.folder {
		t.Errorf("listed %+v", s)
	}
	// The JSON has exactly the documented keys.
	var raw map[string]any
	json.Unmarshal([]byte(w.must("wrap", "--json", "--", "true")), &raw)
	for _, k := range []string{"id", "argv", "env", "dir"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("wrap --json lacks %q", k)
		}
	}
	if len(raw) != 4 {
		t.Errorf("wrap --json has keys beyond id, argv, env, dir: %v", raw)
	}
	// The default (shell) form runs in sh as printed.
	line := strings.TrimSpace(w.must("wrap", "--", "sh", "-c", "echo shell-form $LNK_SANDBOX"))
	out, err := exec.Command("sh", "-c", line).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "shell-form ") {
		t.Errorf("shell form: %v: %s", err, out)
	}
}

// Run in the home folder itself, as the README's first command does: the
// home's own protected and secret paths lie inside the writable folder.
func TestRunInHome(t *testing.T) {
	w := newWorld(t, true)
	r := w.lnkIn(w.home, "run", "--", "sh", "-c", "pwd; touch made-here")
	if r.code != 0 || strings.TrimSpace(r.stdout) != w.home {
		t.Fatalf("run in HOME: exit %d, %q, %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.home, "made-here")); err != nil {
		t.Errorf("the folder was not writable: %v", err)
	}
	for _, rc := range []string{".bashrc", ".profile"} {
		if r := w.lnkIn(w.home, "run", "--", "sh", "-c", "echo x >> "+rc); r.code == 0 {
			t.Errorf("the sandbox wrote %s in HOME", rc)
		}
	}
}

// A command that cannot start (not found inside) is listed as exited
// with 127, not left waiting as "starting" or with no code.
func TestRunFailureLeavesNothingStarting(t *testing.T) {
	w := newWorld(t, true)
	r := w.lnk("run", "--name", "missing", "--", "no-such-program-lnk")
	if r.code != 127 {
		t.Errorf("a missing program: exit %d, want 127 (%s)", r.code, r.stderr)
	}
	var last apitype.Sandbox
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, s := range w.list() {
			if s.Name == "missing" {
				last = s
			}
		}
		if last.State == apitype.StateExited && last.ExitCode != nil && *last.ExitCode == 127 {
			return
		}
	}
	t.Errorf("the failed sandbox is listed as %q (code %v), want exited with 127", last.State, last.ExitCode)
}

// Several verbs at once on a fresh machine start one daemon between them,
// and every one of them works.
func TestConcurrentAutoStart(t *testing.T) {
	w := newWorld(t, true)
	const n = 4
	results := make(chan result, n)
	for i := 0; i < n; i++ {
		go func() { results <- w.lnk("list") }()
	}
	for i := 0; i < n; i++ {
		if r := <-results; r.code != 0 {
			t.Errorf("list %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	sock := filepath.Join(w.paths().Runtime, "control.sock")
	// A daemon that lost the race may take a moment to exit.
	daemons := processesWith("--socket\x00" + sock + "\x00")
	for i := 0; i < 50 && len(daemons) > 1; i++ {
		time.Sleep(100 * time.Millisecond)
		daemons = processesWith("--socket\x00" + sock + "\x00")
	}
	if len(daemons) != 1 {
		t.Errorf("%d daemons serve %s, want 1: %v", len(daemons), sock, daemons)
	}
}

// A harness runs several commands at once in one folder: each gets its
// own sandbox and all of them run.
func TestConcurrentRunsInOneFolder(t *testing.T) {
	w := newWorld(t, true)
	w.must("list")
	const n = 4
	results := make(chan result, n)
	for i := 0; i < n; i++ {
		go func() { results <- w.lnk("run", "--", "true") }()
	}
	for i := 0; i < n; i++ {
		if r := <-results; r.code != 0 {
			t.Errorf("concurrent run %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
}
