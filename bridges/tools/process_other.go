//go:build !unix

package tools

import "os/exec"

func setGroup(cmd *exec.Cmd) {}

// terminate ends the server: Windows has no SIGTERM to send.
func terminate(cmd *exec.Cmd) { cmd.Process.Kill() }

func kill(cmd *exec.Cmd) { cmd.Process.Kill() }
