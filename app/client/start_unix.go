//go:build !windows

package client

import "syscall"

// detached puts the daemon in a session of its own, away from the
// terminal's signals.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
