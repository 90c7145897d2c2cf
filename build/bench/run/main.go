//go:build linux

// Command run measures `lnk sandbox run -- true` with the daemon warm
// against bare bwrap, side by side in one run, alternating, and the
// daemon's resident memory idle and with 50 idle sandboxes. It builds lnk,
// and uses a fresh HOME and XDG_RUNTIME_DIR; the daemon it starts is
// stopped by pid at the end.
//
//	go run ./build/bench/run [-n runs] [-sandboxes N]
//
// Goals (issue 5): median run <= bare bwrap + 10 ms; daemon RSS <= 30 MB
// idle and <= 2 MB more per running sandbox.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 40, "runs of each command, alternating")
	sandboxes := flag.Int("sandboxes", 50, "idle sandboxes for the memory figure")
	flag.Parse()
	if err := run(*n, *sandboxes); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// bench is one fresh world with a built lnk.
type bench struct {
	dir, lnk, home string // home is also the sandbox's folder
	env            []string
}

func run(n, sandboxes int) error {
	dir, err := os.MkdirTemp("/tmp", "lnkb")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b, err := newBench(dir)
	if err != nil {
		return err
	}
	lock := filepath.Join(dir, "run", "lnk", "daemon.lock")
	defer b.stopDaemon(lock)
	if err := b.cmd("sandbox", "run", "--", "true").Run(); err != nil { // starts the daemon
		return fmt.Errorf("lnk sandbox run -- true: %v", err)
	}
	pid, err := daemonPID(lock)
	if err != nil {
		return err
	}
	if err := b.startup(n); err != nil {
		return err
	}
	rss, err := rssKB(pid)
	if err != nil {
		return err
	}
	fmt.Printf("daemon RSS after %d sandboxes came and went: %.1f MB\n", 2*n+1, float64(rss)/1024)
	// Memory is measured on a fresh daemon, so that heap freed by the
	// runs above does not hide what each sandbox holds.
	b.stopDaemon(lock)
	if err := b.cmd("sandbox", "list").Run(); err != nil {
		return fmt.Errorf("restart the daemon: %v", err)
	}
	if pid, err = daemonPID(lock); err != nil {
		return err
	}
	return b.memory(pid, sandboxes)
}

// newBench builds lnk and makes a fresh HOME and XDG_RUNTIME_DIR in dir.
func newBench(dir string) (*bench, error) {
	b := &bench{dir: dir, lnk: filepath.Join(dir, "lnk"), home: filepath.Join(dir, "home")}
	if out, err := exec.Command("go", "build", "-o", b.lnk, "lnk.dev/sandbox/app/lnk").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %v\n%s", err, out)
	}
	rt := filepath.Join(dir, "run")
	for _, d := range []string{b.home, rt} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	b.env = []string{"HOME=" + b.home, "XDG_RUNTIME_DIR=" + rt, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	return b, nil
}

// startup times run against bare bwrap, alternating, and the two halves
// of run (wrap, then the wrapped command) as a harness sees them.
func (b *bench) startup(n int) error {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return fmt.Errorf("bwrap not found: install the bubblewrap package")
	}
	bare := []string{bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"}
	lnkRun := []string{b.lnk, "sandbox", "run", "--", "true"}
	status := []string{b.lnk, "sandbox", "status"}
	var tBare, tLnk, tWrap, tWall, tStatus []time.Duration
	for i := 0; i < n; i++ { // alternate, so drift hits both alike
		d, err := b.time(bare)
		if err != nil {
			return fmt.Errorf("bare bwrap: %v", err)
		}
		tBare = append(tBare, d)
		if d, err = b.time(lnkRun); err != nil {
			return fmt.Errorf("lnk sandbox run: %v", err)
		}
		tLnk = append(tLnk, d)
		dw, dx, err := b.split()
		if err != nil {
			return err
		}
		tWrap, tWall = append(tWrap, dw), append(tWall, dx)
		if d, err = b.time(status); err != nil {
			return fmt.Errorf("lnk sandbox status: %v", err)
		}
		tStatus = append(tStatus, d)
	}
	fmt.Printf("startup, %d runs each, alternating (median, min-max):\n", n)
	fmt.Printf("  bare bwrap --unshare-all true   %s\n", stats(tBare))
	fmt.Printf("  lnk sandbox run -- true (warm)  %s\n", stats(tLnk))
	fmt.Printf("  lnk over bare bwrap             %+.1f ms (goal <= +10 ms)\n", ms(median(tLnk)-median(tBare)))
	fmt.Printf("  of which: lnk sandbox wrap      %s  (CLI, spec, daemon, proxy, confine.Wrap)\n", stats(tWrap))
	fmt.Printf("            the wrapped command   %s  (guard, bwrap, init, health, session)\n", stats(tWall))
	fmt.Printf("  for scale: lnk sandbox status   %s  (lnk's start-up and one request)\n", stats(tStatus))
	return nil
}

// memory reads the daemon's RSS idle and with idle sandboxes running.
func (b *bench) memory(pid, sandboxes int) error {
	time.Sleep(500 * time.Millisecond)
	idle, err := rssKB(pid)
	if err != nil {
		return err
	}
	fmt.Printf("daemon RSS idle (fresh): %.1f MB (goal <= 30 MB)\n", float64(idle)/1024)
	procs, err := b.idleSandboxes(sandboxes)
	defer func() {
		b.cmd("sandbox", "stop", "--all").Run()
		for _, p := range procs {
			p.Process.Kill()
			p.Wait()
		}
	}()
	if err != nil {
		return err
	}
	time.Sleep(time.Second)
	full, err := rssKB(pid)
	if err != nil {
		return err
	}
	per := float64(full-idle) / 1024 / float64(sandboxes)
	fmt.Printf("daemon RSS with %d idle sandboxes: %.1f MB, %.2f MB per sandbox (goal <= 2 MB)\n", sandboxes, float64(full)/1024, per)
	return nil
}

func (b *bench) cmd(args ...string) *exec.Cmd {
	c := exec.Command(b.lnk, args...)
	c.Env, c.Dir = b.env, b.home
	return c
}

func (b *bench) time(argv []string) (time.Duration, error) {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env, c.Dir = b.env, b.home
	c.Stdout = io.Discard
	t0 := time.Now()
	err := c.Run()
	return time.Since(t0), err
}

// split times `lnk sandbox wrap --json -- true` and then running what it
// printed, as a harness does.
func (b *bench) split() (wrap, wall time.Duration, err error) {
	t0 := time.Now()
	out, err := b.cmd("sandbox", "wrap", "--json", "--", "true").Output()
	wrap = time.Since(t0)
	if err != nil {
		return 0, 0, fmt.Errorf("wrap: %v", err)
	}
	var w struct {
		Argv []string `json:"argv"`
		Env  []string `json:"env"`
		Dir  string   `json:"dir"`
	}
	if err := json.Unmarshal(out, &w); err != nil {
		return 0, 0, err
	}
	c := exec.Command(w.Argv[0], w.Argv[1:]...)
	c.Env, c.Dir = w.Env, w.Dir
	t0 = time.Now()
	err = c.Run()
	return wrap, time.Since(t0), err
}

// idleSandboxes starts n wrapped `sleep` commands, as a harness would, and
// waits until the daemon lists each as running.
func (b *bench) idleSandboxes(n int) ([]*exec.Cmd, error) {
	var procs []*exec.Cmd
	var errs lockedBuffer
	for i := 0; i < n; i++ {
		out, err := b.cmd("sandbox", "wrap", "--json", "--", "sleep", "600").Output()
		if err != nil {
			return procs, fmt.Errorf("wrap: %v", err)
		}
		var w struct {
			Argv []string `json:"argv"`
			Env  []string `json:"env"`
			Dir  string   `json:"dir"`
		}
		if err := json.Unmarshal(out, &w); err != nil {
			return procs, err
		}
		c := exec.Command(w.Argv[0], w.Argv[1:]...)
		c.Env, c.Dir = w.Env, w.Dir
		c.Stderr = &errs
		if err := c.Start(); err != nil {
			return procs, err
		}
		procs = append(procs, c)
	}
	for i := 0; i < 300; i++ {
		out, _ := b.cmd("sandbox", "status", "--json").Output()
		var st struct {
			Counts map[string]int `json:"counts"`
		}
		json.Unmarshal(out, &st)
		if st.Counts["running"] >= n {
			return procs, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return procs, fmt.Errorf("the %d sandboxes did not all start: %s", n, errs.String())
}

// lockedBuffer collects the sandboxes' stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (b *bench) stopDaemon(lock string) {
	pid, err := daemonPID(lock)
	if err != nil {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 100; i++ {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

func daemonPID(lock string) (int, error) {
	b, err := os.ReadFile(lock)
	if err != nil {
		return 0, fmt.Errorf("no daemon: %v", err)
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// rssKB reads VmRSS of pid, in KiB.
func rssKB(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			return strconv.Atoi(f[1])
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func stats(d []time.Duration) string {
	return fmt.Sprintf("%6.1f ms  (%.1f-%.1f)", ms(median(d)), ms(slices.Min(d)), ms(slices.Max(d)))
}
