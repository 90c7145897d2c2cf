// Package testenv lets tests ask for a system component (a program, bwrap
// that works, a display, a session bus). Where it is missing a test skips
// on a developer's machine and FAILS when CI=true, so CI never passes by
// skipping what it was meant to prove.
package testenv

import (
	"os"
	"os/exec"
	"sync"
	"testing"
)

// InCI reports whether the tests run in CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// Missing skips the test, or fails it in CI, saying what is missing and how
// to fix it.
func Missing(t testing.TB, what, fix string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s is missing, and CI=true requires it: %s", what, fix)
	}
	t.Skipf("%s is missing (%s); skipped outside CI", what, fix)
}

// NeedCommand returns the path of the program name, or skips (fails in CI).
func NeedCommand(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name, "install the Debian package "+pkg)
	}
	return p
}

var (
	bwrapOnce sync.Once
	bwrapErr  string
)

// NeedBwrap skips (fails in CI) unless bubblewrap is installed and can
// create a sandbox with every namespace as this user.
func NeedBwrap(t testing.TB) {
	t.Helper()
	NeedCommand(t, "bwrap", "bubblewrap")
	bwrapOnce.Do(func() {
		out, err := exec.Command("bwrap", "--unshare-all", "--die-with-parent",
			"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true").CombinedOutput()
		if err != nil {
			bwrapErr = string(out) + err.Error()
		}
	})
	if bwrapErr != "" {
		Missing(t, "a working bwrap ("+bwrapErr+")", "enable unprivileged user namespaces")
	}
}

// NeedEnv skips (fails in CI) unless the environment variable is set.
func NeedEnv(t testing.TB, name, fix string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		Missing(t, "$"+name, fix)
	}
	return v
}
