//go:build linux

// Command wall measures what lnk's Linux wall adds to a bare bwrap: it
// runs, alternating in one process, `bwrap --unshare-all ... -- true`
// bare, bwrap with lnk's mounts only, and the whole wall (guard, bwrap,
// init with its relay and health check against a stand-in proxy on a
// unix socket) running `true`, and prints the median and min-max of each.
//
//	go run ./build/bench/wall [-n 60]
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"lnk.dev/sandbox/confine"
	"lnk.dev/sandbox/spec"
)

func main() {
	n := flag.Int("n", 60, "runs of each")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	dir, err := os.MkdirTemp("/var/tmp", "lnk-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lnk := filepath.Join(dir, "lnk")
	if out, err := exec.Command("go", "build", "-o", lnk, "lnk.dev/sandbox/app/lnk").CombinedOutput(); err != nil {
		return fmt.Errorf("build lnk: %v\n%s", err, out)
	}
	sock := filepath.Join(dir, "proxy.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			_, _ = io.WriteString(w, "ok")
			return
		}
		http.NotFound(w, r)
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()

	home, folder := filepath.Join(dir, "home"), filepath.Join(dir, "home", "work")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return err
	}
	env, err := spec.OSEnv(folder)
	if err != nil {
		return err
	}
	env.Home = home
	p, err := spec.Resolve(spec.Default(), "default", env)
	if err != nil {
		return err
	}
	r := &confine.Request{Policy: p, Argv: []string{"true"}, Env: os.Environ(), SandboxID: "bench",
		Secret: "bench", LnkPath: lnk, ProxySocket: sock, ProxyPort: 3128}
	wall, err := confine.Wrap(r)
	if err != nil {
		return err
	}
	// The wall with `true` in place of init: the guard and lnk's mounts.
	var mountsOnly []string
	for i, a := range wall.Argv {
		if i > 0 && a == confine.InnerLnk && wall.Argv[i-1] == "--" {
			break
		}
		mountsOnly = append(mountsOnly, a)
	}
	mountsOnly = append(mountsOnly, "true")
	bare := []string{"bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
		"--dev", "/dev", "--proc", "/proc", "--", "true"}

	// For reference: starting the lnk binary once (the guard running
	// `true` instead of bwrap). The wall starts it twice (guard, init).
	lnkOnce := []string{lnk, "sandbox", "init", "--guard", "--", "true"}
	names := []string{"bare bwrap", "guard + bwrap, lnk's mounts", "lnk's wall (guard+bwrap+init)",
		"wall, guard in-process (as run)", "reference: one start of lnk"}
	argvs := [][]string{bare, mountsOnly, wall.Argv, nil, lnkOnce}
	envs := [][]string{os.Environ(), wall.Env, wall.Env, nil, os.Environ()}
	// The in-process guard (lnk sandbox run is the guard itself) runs with
	// the wall's environment and folder, as run sets them.
	os.Clearenv()
	for _, kv := range wall.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			os.Setenv(k, v)
		}
	}
	if err := os.Chdir(folder); err != nil {
		return err
	}
	times := make([][]time.Duration, len(argvs))
	cpus := make([][]time.Duration, len(argvs)) // user+sys of the process and all it waited for
	for i := 0; i < n+3; i++ {                  // three warm-up rounds, not counted
		for k, argv := range argvs {
			if argv == nil {
				d, cpu, err := inProcess(wall.Argv[3:])
				if err != nil {
					return err
				}
				if i >= 3 {
					times[k] = append(times[k], d)
					cpus[k] = append(cpus[k], cpu)
				}
				continue
			}
			c := exec.Command(argv[0], argv[1:]...)
			c.Env, c.Dir, c.Stdout, c.Stderr = envs[k], folder, os.Stdout, os.Stderr
			start := time.Now()
			if err := c.Run(); err != nil {
				return fmt.Errorf("%s: %v", names[k], err)
			}
			if i >= 3 {
				times[k] = append(times[k], time.Since(start))
				cpus[k] = append(cpus[k], c.ProcessState.UserTime()+c.ProcessState.SystemTime())
			}
		}
	}
	fmt.Printf("%d runs each, alternating, `true` inside; wall-clock time, and CPU time (user+sys, all processes)\n", n)
	med := make([]time.Duration, len(times))
	for k, ts := range times {
		sortDur(ts)
		sortDur(cpus[k])
		med[k] = ts[len(ts)/2]
		fmt.Printf("%-32s median %7.2f ms   min %7.2f   max %7.2f   | cpu median %6.2f ms\n",
			names[k], ms(med[k]), ms(ts[0]), ms(ts[len(ts)-1]), ms(cpus[k][len(ts)/2]))
	}
	fmt.Printf("lnk's wall adds %.2f ms (median) over bare bwrap (%.2f ms with the guard in-process); guard and mounts alone add %.2f ms\n",
		ms(med[2]-med[0]), ms(med[3]-med[0]), ms(med[1]-med[0]))
	return nil
}

// inProcess runs the guard in this process, as `lnk sandbox run` does,
// and returns the time taken and the CPU time of it and its children.
func inProcess(args []string) (time.Duration, time.Duration, error) {
	var s0, c0, s1, c1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &s0)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c0)
	start := time.Now()
	if code := confine.RunInit(args); code != 0 {
		return 0, 0, fmt.Errorf("in-process guard: exit %d", code)
	}
	d := time.Since(start)
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &s1)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c1)
	cpu := tv(s1.Utime) + tv(s1.Stime) - tv(s0.Utime) - tv(s0.Stime) +
		tv(c1.Utime) + tv(c1.Stime) - tv(c0.Utime) - tv(c0.Stime)
	return d, cpu, nil
}

func tv(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }

func sortDur(ts []time.Duration) { sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] }) }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
