//go:build linux

package confine

import "golang.org/x/sys/unix"

func auditArch() (arch uint32, x32, ok bool) { return unix.AUDIT_ARCH_AARCH64, false, true }
