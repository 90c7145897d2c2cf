package cli

import (
	"os"
	"runtime"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/confine"
)

// inProcessGuard reports whether the wrapped command starts with this very
// program's wall guard (`lnk sandbox init --guard …`, Linux), which `run`
// can then be itself instead of starting a second lnk: one process and one
// Go start-up fewer on every run. The guard passes signals to init and
// mirrors the exit code, as runWrapped does for any other wall.
func inProcessGuard(w *apitype.WrapResponse) bool {
	if runtime.GOOS != "linux" || len(w.Argv) < 4 || w.Argv[1] != "sandbox" || w.Argv[2] != "init" || w.Argv[3] != "--guard" {
		return false
	}
	self, err := os.Executable()
	if err != nil {
		return false
	}
	a, err1 := os.Stat(self)
	b, err2 := os.Stat(w.Argv[0])
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// runGuard becomes the guard: the wrapped command's environment and folder
// replace this process's, then the guard runs with its arguments.
func runGuard(w *apitype.WrapResponse) error {
	os.Clearenv()
	for _, kv := range w.Env {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' && i > 0 {
				os.Setenv(kv[:i], kv[i+1:])
				break
			}
		}
	}
	if w.Dir != "" {
		if err := os.Chdir(w.Dir); err != nil {
			return failf(ExitFailure, "cannot enter the sandbox's folder %s: %v: check that it exists", w.Dir, err)
		}
	}
	if code := confine.RunInit(w.Argv[3:]); code != 0 {
		return &exitError{code: code}
	}
	return nil
}
