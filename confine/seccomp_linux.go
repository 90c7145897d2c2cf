package confine

import (
	"errors"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Offsets in struct seccomp_data (little-endian: the low half of an
// argument comes first).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retNoSys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	retKill  = unix.SECCOMP_RET_KILL_PROCESS
)

// deniedSyscalls fail with EPERM: tracing, kernel keyrings, BPF, perf,
// userfaultfd, every mount call, namespace joins, module and kexec loads,
// handle-based opens.
var deniedSyscalls = []uint32{
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_BPF, unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_OPEN_TREE,
	unix.SYS_MOVE_MOUNT, unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT,
	unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR, unix.SYS_SETNS,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_KEXEC_LOAD, unix.SYS_INIT_MODULE,
	unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
}

// noSysSyscalls fail with ENOSYS, so programs fall back: io_uring (its
// IORING_OP_SOCKET would get round the socket rule) and clone3 (its flags
// sit in memory a filter cannot read; libc falls back to clone).
var noSysSyscalls = []uint32{
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_CLONE3,
}

// seccompFilter returns the child's filter, or an error on an
// architecture it does not know. onlyTCP (the weak mode, with no network
// namespace) also refuses every socket but TCP over IPv4 and IPv6: no
// UDP (DNS), netlink or other families.
func seccompFilter(onlyTCP bool) ([]bpf.RawInstruction, error) {
	arch, x32, ok := auditArch()
	if !ok {
		return nil, errors.New("seccomp: no filter for the " + runtime.GOARCH + " architecture: the wall runs on amd64 and arm64")
	}
	p := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch, SkipFalse: 1},
		bpf.Jump{Skip: 1},
		bpf.RetConstant{Val: retKill},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if x32 {
		p = append(p, bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 0x40000000, SkipFalse: 1},
			bpf.RetConstant{Val: retNoSys})
	}
	for _, nr := range deniedSyscalls {
		p = append(p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, bpf.RetConstant{Val: retEPERM})
	}
	for _, nr := range noSysSyscalls {
		p = append(p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, bpf.RetConstant{Val: retNoSys})
	}
	if onlyTCP {
		p = append(p, tcpOnly()...)
	}
	// socket and socketpair: no AF_UNIX (the domain is an int: low half).
	for _, nr := range []uint32{unix.SYS_SOCKET, unix.SYS_SOCKETPAIR} {
		p = append(p,
			bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: nr, SkipTrue: 4},
			bpf.LoadAbsolute{Off: offArg0, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipFalse: 1},
			bpf.RetConstant{Val: retEPERM},
			bpf.RetConstant{Val: retAllow})
	}
	// ioctl: no TIOCSTI or TIOCLINUX. The kernel reads cmd as an unsigned
	// int, so only the low half counts, whatever the high half holds.
	p = append(p,
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SYS_IOCTL, SkipTrue: 5},
		bpf.LoadAbsolute{Off: offArg1, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCSTI, SkipTrue: 1},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCLINUX, SkipFalse: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.RetConstant{Val: retAllow})
	// clone and unshare: no new user namespace.
	for _, nr := range []uint32{unix.SYS_CLONE, unix.SYS_UNSHARE} {
		p = append(p,
			bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: nr, SkipTrue: 4},
			bpf.LoadAbsolute{Off: offArg0, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: unix.CLONE_NEWUSER, SkipFalse: 1},
			bpf.RetConstant{Val: retEPERM},
			bpf.RetConstant{Val: retAllow})
	}
	p = append(p, bpf.RetConstant{Val: retAllow})
	return bpf.Assemble(p)
}

// tcpOnly: socket() only for AF_INET and AF_INET6 with SOCK_STREAM (the
// type's low four bits; SOCK_CLOEXEC and SOCK_NONBLOCK sit above them).
func tcpOnly() []bpf.Instruction {
	return []bpf.Instruction{
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SYS_SOCKET, SkipTrue: 9},
		bpf.LoadAbsolute{Off: offArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET6, SkipTrue: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.LoadAbsolute{Off: offArg1, Size: 4},
		bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_STREAM, SkipTrue: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.RetConstant{Val: retAllow},
	}
}

// loadSeccomp installs the filter on the calling thread only (no TSYNC):
// init runs it on a thread kept for starting the child.
func loadSeccomp(onlyTCP bool) error {
	raw, err := seccompFilter(onlyTCP)
	if err != nil {
		return err
	}
	fs := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		fs[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(fs)), Filter: &fs[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return errors.New("seccomp: cannot set no_new_privs: " + err.Error())
	}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		return errors.New("seccomp: the kernel refused the filter: " + errno.Error())
	}
	return nil
}
