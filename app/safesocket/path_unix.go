//go:build !windows

package safesocket

import "path/filepath"

// SocketPath returns the control socket's path in runtimeDir (lnk's
// per-user runtime folder).
func SocketPath(runtimeDir string) string {
	return filepath.Join(runtimeDir, "control.sock")
}
