//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
)

// counter reads the number the sandboxed loop writes, or -1.
func counter(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1
	}
	return n
}

// waitAdvance waits (bounded) for the counter to pass n and returns it.
func waitAdvance(t *testing.T, path string, n int) int {
	t.Helper()
	for i := 0; i < 300; i++ {
		if c := counter(t, path); c > n {
			return c
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the counter did not pass %d", n)
	return 0
}

// processesWith lists pids whose command line holds marker.
func processesWith(marker string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), marker) && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// list, pause, resume and stop change the sandbox's state and what it
// does: a paused counter stands still, a stopped sandbox's processes are
// gone.
func TestListPauseResumeStop(t *testing.T) {
	w := newWorld(t, true)
	marker := "lnk-e2e-marker-" + strconv.Itoa(os.Getpid())
	file := filepath.Join(w.folder, "counter")
	// Two processes: the loop and a child sleeping in the background.
	script := `sleep 600 & i=0; while :; do i=$((i+1)); echo $i > counter.tmp; mv counter.tmp counter; sleep 0.05; done; : ` + marker
	resp, p := w.startWrapped("--name", "counter", "--", "sh", "-c", script)
	s := w.waitState(resp.ID, apitype.StateRunning)
	if s.InitPID == 0 || s.Started.IsZero() || strings.Join(s.Argv, " ") != "sh -c "+script {
		t.Errorf("listed %+v", s)
	}
	if out := w.must("list"); !strings.Contains(out, resp.ID) || !strings.Contains(out, "running") || !strings.Contains(out, "counter") {
		t.Errorf("list:\n%s", out)
	}
	n := waitAdvance(t, file, 0)
	if len(processesWith(marker)) == 0 {
		t.Fatal("cannot see the sandbox's processes")
	}

	w.must("pause", resp.ID)
	w.waitState(resp.ID, apitype.StatePaused)
	time.Sleep(300 * time.Millisecond) // let a write in flight land
	frozen := counter(t, file)
	time.Sleep(time.Second)
	if c := counter(t, file); c != frozen {
		t.Fatalf("a paused sandbox's counter went from %d to %d", frozen, c)
	}

	w.must("resume", resp.ID)
	w.waitState(resp.ID, apitype.StateRunning)
	waitAdvance(t, file, max(frozen, n))

	if out := w.must("stop", resp.ID); !strings.Contains(out, resp.ID) {
		t.Errorf("stop said %q", out)
	}
	w.waitState(resp.ID, apitype.StateStopped)
	p.wait(t, 10*time.Second)
	if !waitGone(s.InitPID, 5*time.Second) {
		t.Errorf("init pid %d survived stop", s.InitPID)
	}
	for i := 0; i < 50 && len(processesWith(marker)) > 0; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if left := processesWith(marker); len(left) > 0 {
		t.Errorf("processes of a stopped sandbox are still there: %v", left)
	}
	after := counter(t, file)
	time.Sleep(500 * time.Millisecond)
	if c := counter(t, file); c != after {
		t.Errorf("a stopped sandbox's counter still moves: %d -> %d", after, c)
	}
	// Stopping again, pausing a stopped one: clear refusals.
	if r := w.lnk("pause", resp.ID); r.code != 1 || !strings.HasPrefix(r.stderr, "lnk: ") {
		t.Errorf("pause of a stopped sandbox: %d %q", r.code, r.stderr)
	}
	if r := w.lnk("stop", resp.ID); r.code != 1 {
		t.Errorf("second stop: %d %q", r.code, r.stderr)
	}
}

// stop --all ends every sandbox, a paused one and a wrapped one never
// started included; the latter then cannot start.
func TestStopAll(t *testing.T) {
	w := newWorld(t, true)
	a, pa := w.startWrapped("--", "sleep", "600")
	w.waitState(a.ID, apitype.StateRunning)
	var never apitype.WrapResponse
	if err := json.Unmarshal([]byte(w.must("wrap", "--json", "--", "echo", "RAN")), &never); err != nil {
		t.Fatal(err)
	}
	b, pb := w.startWrapped("--", "sleep", "600")
	w.waitState(b.ID, apitype.StateRunning)
	w.must("pause", a.ID) // a paused sandbox stops too
	w.waitState(a.ID, apitype.StatePaused)
	out := w.must("stop", "--all")
	if !strings.Contains(out, a.ID) || !strings.Contains(out, b.ID) || !strings.Contains(out, never.ID) {
		t.Errorf("stop --all said %q", out)
	}
	pa.wait(t, 10*time.Second)
	pb.wait(t, 10*time.Second)
	for _, id := range []string{a.ID, b.ID, never.ID} {
		w.waitState(id, apitype.StateStopped)
	}
	// The stopped, never-started one has no way out: it refuses to run.
	cmd := exec.Command(never.Argv[0], never.Argv[1:]...)
	cmd.Env, cmd.Dir = never.Env, never.Dir
	out2, err := cmd.CombinedOutput()
	if err == nil || strings.Contains(string(out2), "RAN") {
		t.Errorf("a stopped wrapped command ran: %v %s", err, out2)
	}
}
