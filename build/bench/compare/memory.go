//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"time"
)

// measureMemory reads the daemon's RSS idle and with o.sandboxes idle
// sandboxes running, which it then stops.
func measureMemory(w *world, o *options) ([]row, error) {
	if _, _, err := timed(w.lnkCmd("true")); err != nil {
		return nil, err
	}
	pid := w.daemonPID()
	if pid <= 0 {
		return nil, fmt.Errorf("no daemon pid from lnk sandbox status --json")
	}
	idle, err := rssMB(pid)
	if err != nil {
		return nil, err
	}
	var cmds []*exec.Cmd
	defer func() {
		stop := exec.Command(w.lnk, "sandbox", "stop", "--all")
		stop.Env = w.env
		stop.Run()
		for _, c := range cmds {
			done := make(chan struct{})
			go func() { c.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				c.Process.Kill()
				<-done
			}
		}
	}()
	for i := 0; i < o.sandboxes; i++ {
		c := w.lnkCmd("sleep", "120")
		if err := c.Start(); err != nil {
			return nil, err
		}
		cmds = append(cmds, c)
	}
	if err := w.waitRunning(o.sandboxes, 60*time.Second); err != nil {
		return nil, err
	}
	full, err := rssMB(pid)
	if err != nil {
		return nil, err
	}
	per := (full - idle) / float64(o.sandboxes)
	return []row{
		{name: "lnk daemon RSS, idle", unit: "MB", lnk: []float64{idle}},
		{name: fmt.Sprintf("lnk daemon RSS, %d idle sandboxes", o.sandboxes), unit: "MB", lnk: []float64{full}},
		{name: "lnk daemon RSS per extra sandbox", unit: "MB", lnk: []float64{per}},
	}, nil
}

// waitRunning waits until the daemon counts n running sandboxes.
func (w *world) waitRunning(n int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	last := 0
	for time.Now().Before(deadline) {
		c := exec.Command(w.lnk, "sandbox", "status", "--json")
		c.Env = w.env
		out, err := c.Output()
		if err == nil {
			var st struct {
				Counts map[string]int `json:"counts"`
			}
			if json.Unmarshal(out, &st) == nil {
				last = st.Counts["running"]
				if last >= n {
					return nil
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("only %d of %d sandboxes running after %v", last, n, limit)
}
