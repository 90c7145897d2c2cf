//go:build !windows

package confine

import (
	"fmt"
	"io"
)

// RunWindowsACL is the body of `lnk sandbox windows-acl-run`, which runs
// on Windows only; elsewhere it fails by the runner's contract.
func RunWindowsACL(args []string, stderr io.Writer) int {
	if _, err := PlanWinRun(args); err != nil {
		fmt.Fprintf(stderr, "windows-acl-run: %v\n", err)
		return WinRunFailure
	}
	fmt.Fprintln(stderr, "windows-acl-run: this runner confines commands on Windows only: on Linux and macOS use lnk sandbox run")
	return WinRunFailure
}
