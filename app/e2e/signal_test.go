//go:build linux

package e2e

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C reaches the command: the terminal's SIGINT to run's process
// group is passed to the command inside, whose exit code is mirrored.
func TestCtrlCReachesCommand(t *testing.T) {
	w := newWorld(t, true)
	cmd := exec.Command(lnkBin, "sandbox", "run", "--", "sh", "-c",
		`trap 'echo got-int; exit 9' INT; echo ready; while :; do sleep 0.1; done`)
	cmd.Env, cmd.Dir = w.env(), w.folder
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a terminal's foreground group
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	for i := 0; i < 300 && !strings.Contains(out.String(), "ready"); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "ready") {
		t.Fatalf("the command did not start: %s", out)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("Ctrl-C did not end the command: %s", out)
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 9 || !strings.Contains(out.String(), "got-int") {
		t.Errorf("after Ctrl-C: %v, output %q; want exit 9 from the command's trap", err, out)
	}
}
