//go:build !linux

package cli

import "runtime"

// platformChecks: outside Linux the wall's checks belong to its own
// backend; say plainly what is not checked.
func platformChecks() []check {
	switch runtime.GOOS {
	case "windows":
		return []check{{name: "wall", optional: true, detail: "Windows confines writes only: reads and network are NOT enforced",
			fix: "see 'lnk sandbox permissions'"}}
	case "darwin":
		return []check{{name: "wall", ok: true, detail: "Seatbelt (sandbox-exec)"}}
	}
	return []check{{name: "wall", detail: runtime.GOOS + " has no wall", fix: "run lnk on Linux, macOS or Windows"}}
}
