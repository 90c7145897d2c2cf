package cli

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

var forwarded = []os.Signal{os.Interrupt}

func ownGroup() *syscall.SysProcAttr { return nil }

func signalPID(int, os.Signal) error { return errors.New("not supported") }

func exitCode(ee *exec.ExitError) int { return ee.ExitCode() }
