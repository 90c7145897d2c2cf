//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// row is one line of the report: samples for the direct path (or bare
// bwrap), lnk and srt. A nil slice is a column that does not apply.
type row struct {
	name, unit          string
	higherBetter        bool
	direct, lnk, srtCol []float64
}

// timed runs c and returns its wall time in ms and its peak RSS in MB.
func timed(c *exec.Cmd) (ms, rssMB float64, err error) {
	start := time.Now()
	out, err := c.CombinedOutput()
	ms = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %v\n%s", strings.Join(c.Args, " "), err, out)
	}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rssMB = float64(ru.Maxrss) / 1024
	}
	return ms, rssMB, nil
}

func bareBwrap() *exec.Cmd {
	return exec.Command("bwrap", "--unshare-all", "--die-with-parent", "--new-session",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true")
}

// measureStart times `true` bare, in bare bwrap, through lnk (daemon warm
// and cold) and through srt, alternating.
func measureStart(w *world, o *options) ([]row, error) {
	if _, _, err := timed(w.lnkCmd("true")); err != nil { // warm the daemon
		return nil, err
	}
	var bare, bw, lnk, srt, lnkRSS, srtRSS []float64
	for i := 0; i < o.starts; i++ {
		for _, v := range []struct {
			cmd     *exec.Cmd
			ms, rss *[]float64
		}{
			{exec.Command("true"), &bare, nil},
			{bareBwrap(), &bw, nil},
			{w.lnkCmd("true"), &lnk, &lnkRSS},
			{w.srtCmd("true"), &srt, &srtRSS},
		} {
			ms, rss, err := timed(v.cmd)
			if err != nil {
				return nil, err
			}
			*v.ms = append(*v.ms, ms)
			if v.rss != nil {
				*v.rss = append(*v.rss, rss)
			}
		}
	}
	var cold []float64
	for i := 0; i < o.colds; i++ {
		w.stopDaemon()
		ms, _, err := timed(w.lnkCmd("true"))
		if err != nil {
			return nil, err
		}
		cold = append(cold, ms)
		// one warm run in between, so cold and warm alternate too
		if _, _, err := timed(w.lnkCmd("true")); err != nil {
			return nil, err
		}
	}
	return []row{
		{name: "start `true`, no sandbox", unit: "ms", direct: bare},
		{name: "start `true` (direct = bare bwrap; lnk daemon warm)", unit: "ms", direct: bw, lnk: lnk, srtCol: srt},
		{name: "start `true`, lnk daemon cold", unit: "ms", direct: bw, lnk: cold},
		{name: "wrapper peak RSS per command", unit: "MB", lnk: lnkRSS, srtCol: srtRSS},
	}, nil
}

// curlSpeed downloads url with curl and returns MB/s. Inside a sandbox,
// curl goes through the sandbox's HTTP_PROXY (CONNECT for https). shell runs
// a shell command line directly or inside a sandbox.
func curlSpeed(shell func(string) *exec.Cmd, url string) (float64, error) {
	script := `exec curl -sS -k -o /dev/null -w '%{speed_download}' --noproxy '' ${HTTP_PROXY:+-x "$HTTP_PROXY"} '` + url + `'`
	out, err := shell(script).Output()
	if err != nil {
		return 0, fmt.Errorf("curl %s: %v", url, err)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("curl %s printed %q", url, out)
	}
	return v / 1e6, nil
}

// measureBulk downloads bulkMiB over plain HTTP and over CONNECT+TLS,
// direct, through lnk and through srt, alternating.
func measureBulk(w *world, o *options) ([]row, error) {
	var rows []row
	for _, base := range []string{w.httpURL, w.httpsURL} {
		url := fmt.Sprintf("%s/bulk?bytes=%d", base, int64(o.bulkMiB)<<20)
		var d, l, s []float64
		for i := 0; i < o.bulkRuns; i++ {
			for _, v := range []struct {
				shell func(string) *exec.Cmd
				out   *[]float64
			}{{w.hostShell, &d}, {w.lnkShell, &l}, {w.srtShell, &s}} {
				mbps, err := curlSpeed(v.shell, url)
				if err != nil {
					return nil, err
				}
				*v.out = append(*v.out, mbps)
			}
		}
		kind := "plain HTTP"
		if strings.HasPrefix(base, "https") {
			kind = "HTTPS via CONNECT"
		}
		rows = append(rows, row{name: fmt.Sprintf("bulk %d MiB, %s", o.bulkMiB, kind), unit: "MB/s", higherBetter: true, direct: d, lnk: l, srtCol: s})
	}
	return rows, nil
}

// measureLatency runs the Go client inside each sandbox for small GETs on
// new connections and on one kept-alive connection.
func measureLatency(w *world, o *options) ([]row, error) {
	rounds := 3
	if o.short {
		rounds = 1
	}
	var rows []row
	for _, keep := range []bool{false, true} {
		var p50 [3][]float64
		var p99 [3][]float64
		for i := 0; i < rounds; i++ {
			argv := []string{"./client", "-url", w.httpURL + "/small", "-n", strconv.Itoa(o.gets), "-keepalive=" + strconv.FormatBool(keep)}
			direct := exec.Command(w.client, argv[1:]...)
			direct.Env = w.env
			for j, c := range []*exec.Cmd{direct, w.lnkCmd(argv...), w.srtCmd(argv...)} {
				out, err := c.Output()
				if err != nil {
					return nil, fmt.Errorf("client %v: %v", c.Args, err)
				}
				var a, b float64
				if _, err := fmt.Sscan(string(out), &a, &b); err != nil {
					return nil, fmt.Errorf("client printed %q", out)
				}
				p50[j], p99[j] = append(p50[j], a), append(p99[j], b)
			}
		}
		kind := "new connection"
		if keep {
			kind = "keep-alive"
		}
		rows = append(rows,
			row{name: "small GET p50, " + kind, unit: "ms", direct: p50[0], lnk: p50[1], srtCol: p50[2]},
			row{name: "small GET p99, " + kind, unit: "ms", direct: p99[0], lnk: p99[1], srtCol: p99[2]})
	}
	return rows, nil
}

// rssMB reads VmRSS of pid in MB.
func rssMB(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.Atoi(f[1])
			return float64(kb) / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}
