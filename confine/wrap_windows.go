//go:build windows

package confine

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// Wrap returns the command that runs r's command under lnk's
// WRITE_RESTRICTED token runner (`lnk sandbox windows-acl-run`). It
// confines writes only; see the package doc ("Windows"). The proxy must
// listen on 127.0.0.1:r.ProxyPort (the daemon serves it there on
// Windows); the environment points at it, and nothing holds the command
// to it.
func Wrap(r *Request) (*Command, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	if r.Weak {
		return nil, errors.New("confine: the weak mode is Linux's: Windows has only its write-restricting runner")
	}
	tmp, err := os.MkdirTemp("", "lnk-"+r.SandboxID+"-")
	if err != nil {
		return nil, fmt.Errorf("confine: the sandbox's temp folder: %v", err)
	}
	env := append(r.HostEnviron("windows", tmp), SessionSocketEnv+"="+r.ProxySocket)
	return &Command{Argv: WindowsRunArgv(r, tmp), Env: env, Dir: r.dir()}, nil
}

// Check reports whether the wall can stand here: this process can make
// the runner's WRITE_RESTRICTED token (it has a logon SID) and a job
// object. The runner checks them again when it runs, and fails closed.
func Check() error {
	plan, err := PlanWinRun([]string{"--workspace", os.TempDir(), "--temp", os.TempDir(), "--mode", WinReadOnly, "--", "cmd.exe"})
	if err != nil {
		return fmt.Errorf("the Windows runner cannot plan a run here: %v", err)
	}
	tok, err := restrictedToken(plan)
	if err != nil {
		return fmt.Errorf("the Windows runner cannot make its restricted token (%v): run lnk from an ordinary logon session", err)
	}
	tok.Close()
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("the Windows runner cannot make a job object: %v", err)
	}
	windows.CloseHandle(job)
	return nil
}

// RunInit is Linux's and macOS's; on Windows it says so and fails.
func RunInit(args []string) int {
	fmt.Fprintln(os.Stderr, "lnk: sandbox init runs inside Linux's and macOS's walls only; Windows runs lnk sandbox windows-acl-run")
	return exitFailure
}
