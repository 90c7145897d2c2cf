//go:build linux

// Command compare measures lnk against the direct path and against
// Anthropic's sandbox-runtime (srt), side by side in one run, alternating
// A, B and C run by run so machine drift cancels. It prints a Markdown
// table of medians with min–max and the ratios lnk/direct and srt/lnk.
//
//	go run ./build/bench/compare -srt PATH [-short] [-lnk PATH]
//
// It measures: start (`true` bare, bare bwrap, `lnk sandbox run -- true`
// with the daemon warm and cold, `srt true`); bulk downloads over plain HTTP
// and over CONNECT+TLS (curl inside each sandbox, direct curl outside);
// small GETs on new and kept-alive connections (a Go client inside each
// sandbox); and memory (the daemon idle and with idle sandboxes, each
// wrapper's own RSS). Its upstream servers listen on 127.0.0.1 only; every
// process it starts, it stops. -short runs each measurement briefly for a
// CI smoke run and judges nothing about speed: it fails only when a
// measurement cannot run. `build/bench.sh` installs srt and runs this.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

type options struct {
	short     bool
	lnk, srt  string
	starts    int // runs of each start variant
	colds     int // cold-daemon runs
	bulkMiB   int
	bulkRuns  int
	gets      int // GETs per latency run
	sandboxes int // idle sandboxes for the memory figure
}

func main() {
	if filepath.Base(os.Args[0]) == "client" { // the copy run inside each sandbox
		os.Exit(clientMain(os.Args[1:]))
	}
	var o options
	flag.BoolVar(&o.short, "short", false, "run each measurement briefly (CI smoke); judges nothing")
	flag.StringVar(&o.lnk, "lnk", "", "lnk binary (default: build it)")
	flag.StringVar(&o.srt, "srt", "", "srt program (required; build/bench.sh installs it)")
	flag.Parse()
	o.starts, o.colds, o.bulkMiB, o.bulkRuns, o.gets, o.sandboxes = 30, 8, 512, 3, 300, 50
	if o.short {
		o.starts, o.colds, o.bulkMiB, o.bulkRuns, o.gets, o.sandboxes = 3, 1, 16, 1, 20, 5
	}
	if err := run(&o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(o *options) error {
	if o.srt == "" {
		return fmt.Errorf("no -srt: run build/bench.sh, which installs srt and passes it")
	}
	w, err := newWorld(o)
	if err != nil {
		return err
	}
	defer w.close()
	var rows []row
	steps := []struct {
		name string
		fn   func(*world, *options) ([]row, error)
	}{
		{"start", measureStart},
		{"bulk", measureBulk},
		{"latency", measureLatency},
		{"memory", measureMemory},
	}
	for _, s := range steps {
		fmt.Fprintf(os.Stderr, "bench: %s…\n", s.name)
		r, err := s.fn(w, o)
		if err != nil {
			return fmt.Errorf("%s: %v", s.name, err)
		}
		rows = append(rows, r...)
	}
	printReport(os.Stdout, o, rows)
	return nil
}

// header describes the machine and the date for the report.
func header(o *options) string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				cpu = strings.TrimSpace(l[strings.IndexByte(l, ':')+1:])
				break
			}
		}
	}
	mode := "full run"
	if o.short {
		mode = "SHORT smoke run: figures are not meaningful"
	}
	srtVer, _ := exec.Command(o.srt, "--version").Output()
	return fmt.Sprintf("%s, %d cores (%s), %s/%s, srt %s; %s", time.Now().UTC().Format("2006-01-02"),
		runtime.NumCPU(), cpu, runtime.GOOS, runtime.GOARCH, strings.TrimSpace(string(srtVer)), mode)
}

// abs returns p made absolute, or p if it cannot be.
func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}
