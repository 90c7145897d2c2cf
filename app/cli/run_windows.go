package cli

import (
	"os"
	"os/exec"
	"syscall"
)

var forwarded = []os.Signal{os.Interrupt}

func ownGroup() *syscall.SysProcAttr { return nil }

func exitCode(ee *exec.ExitError) int { return ee.ExitCode() }
