//go:build !windows

package cli

import (
	"os"
	"os/exec"
	"syscall"
)

// forwarded are the signals `run` passes to the command.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH}

// ownGroup starts the wall in a process group of its own, so that the
// terminal's Ctrl-C reaches lnk, which passes it to the command, rather
// than killing the wall.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// exitCode mirrors a finished command: its code, or 128+N for signal N.
func exitCode(ee *exec.ExitError) int {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}
