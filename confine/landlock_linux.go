package confine

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// landlockABI returns the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// errNoLandlock says how to get Landlock.
var errNoLandlock = errors.New("landlock is not available in this kernel: lnk's exec and write rules need Linux 5.13 or newer " +
	"with Landlock enabled (add landlock to the lsm= kernel parameter, e.g. lsm=landlock,lockdown,yama,apparmor,bpf, and reboot)")

const (
	llWriteDir = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	llWriteFile = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
)

// landlockRules are the paths the child may execute from and write to.
type landlockRules struct {
	exec  []string
	write []string // folders and files of the policy, and /tmp
	files []string // folders whose existing files may be written, not changed (/dev)
	// netPort, in the weak mode (no network namespace): TCP connections
	// only to this port, no TCP listening, and no signals or abstract
	// unix sockets outside the sandbox. Needs Landlock ABI 6.
	netPort int
}

// weakABI is the Landlock ABI the weak mode needs: TCP rules (4) and
// signal and abstract socket scoping (6).
const weakABI = 6

// landlockRuleNetPort is LANDLOCK_RULE_NET_PORT.
const landlockRuleNetPort = 2

// restrictThread applies Landlock to the calling thread: execute only
// beneath rules.exec, write only beneath rules.write (and device files
// beneath rules.files). Reading is the mounts' job. Missing paths are
// skipped. It uses what the kernel's ABI has (see doc.go).
func restrictThread(rules landlockRules) error {
	abi := landlockABI()
	if abi < 1 {
		return errNoLandlock
	}
	handled := uint64(unix.LANDLOCK_ACCESS_FS_EXECUTE | llWriteDir)
	extra := uint64(0)
	if abi >= 2 {
		extra |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		extra |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	handled |= extra
	// Only handled_access_fs, the size every Landlock kernel accepts,
	// unless the network is to be ruled too.
	attr := struct{ handledFS, handledNet, scoped uint64 }{handledFS: handled}
	size := unsafe.Sizeof(attr.handledFS)
	if rules.netPort > 0 {
		if abi < weakABI {
			return fmt.Errorf("landlock: this kernel's Landlock (ABI %d) cannot hold the network to the proxy without namespaces: the weak mode needs ABI %d (Linux 6.12 or newer)", abi, weakABI)
		}
		attr.handledNet = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		attr.scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
		size = unsafe.Sizeof(attr)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock: cannot create a ruleset: %v", errno)
	}
	defer unix.Close(int(fd))
	add := func(path string, access uint64) error { return addRule(int(fd), path, access, handled) }
	for _, p := range rules.exec {
		if err := add(p, unix.LANDLOCK_ACCESS_FS_EXECUTE); err != nil {
			return err
		}
	}
	for _, p := range rules.write {
		if err := add(p, llWriteDir|extra); err != nil {
			return err
		}
	}
	for _, p := range rules.files {
		if err := add(p, llWriteFile|extra&unix.LANDLOCK_ACCESS_FS_TRUNCATE); err != nil {
			return err
		}
	}
	if rules.netPort > 0 {
		port := struct{ allowed, port uint64 }{unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, uint64(rules.netPort)}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, landlockRuleNetPort,
			uintptr(unsafe.Pointer(&port)), 0, 0, 0); errno != 0 {
			return fmt.Errorf("landlock: cannot allow the proxy's port: %v", errno)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("landlock: cannot set no_new_privs: %v", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: the kernel refused the rules: %v", errno)
	}
	return nil
}

// addRule allows access beneath path (file rights only, for a file);
// a missing path is skipped.
func addRule(ruleset int, path string, access, handled uint64) error {
	pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // missing: nothing to allow
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if unix.Fstat(pfd, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		// Rules on files take file rights only.
		access &= unix.LANDLOCK_ACCESS_FS_EXECUTE | llWriteFile | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access & handled, Parent_fd: int32(pfd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock: cannot add a rule for %s: %v", path, errno)
	}
	return nil
}
