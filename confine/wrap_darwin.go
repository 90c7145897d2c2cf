//go:build darwin

package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Wrap returns the command that runs r's command inside a Seatbelt
// profile: sandbox-exec, lnk's init, the command. The proxy must listen
// on 127.0.0.1:r.ProxyPort (the daemon serves it there on macOS), behind
// the sandbox's secret.
func Wrap(r *Request) (*Command, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	if r.Weak {
		return nil, errors.New("confine: the weak mode is Linux's: macOS always has its wall (Seatbelt)")
	}
	if err := Check(); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "lnk-"+r.SandboxID+"-")
	if err != nil {
		return nil, fmt.Errorf("confine: the sandbox's temp folder: %v", err)
	}
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real // Seatbelt matches real paths (/var is /private/var)
	}
	prof, err := SeatbeltProfile(r.Policy, SeatbeltOptions{ProxyPort: r.ProxyPort, ProxySocket: r.ProxySocket, LnkPath: r.LnkPath, TempDir: tmp})
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	return &Command{Argv: SeatbeltArgv(r, prof, tmp), Env: r.HostEnviron("darwin", tmp), Dir: r.dir()}, nil
}

// Check reports whether the wall can stand here: sandbox-exec is there.
func Check() error {
	if _, err := os.Stat(SandboxExec); err != nil {
		return fmt.Errorf("%s is missing (%v): lnk's macOS wall is Seatbelt, which every macOS has; reinstall or update macOS", SandboxExec, err)
	}
	return nil
}
