//go:build linux && !amd64 && !arm64

package confine

func auditArch() (arch uint32, x32, ok bool) { return 0, false, false }
