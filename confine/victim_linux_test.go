package confine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// victims are forbidden things the test binary tries inside a sandbox
// (LNK_VICTIM=name). Each prints "DENIED: <why>" or "ALLOWED".
var victims = map[string]func() error{
	"unix-socket": func() error {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fd)
		}
		return want(err, unix.EPERM)
	},
	"unix-socketpair": func() error {
		_, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		return want(err, unix.EPERM)
	},
	"unix-socket-high-bits": func() error {
		// The domain is an int: high bits must not get round the rule.
		fd, _, errno := unix.Syscall(unix.SYS_SOCKET, 1<<32|unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if errno == 0 {
			unix.Close(int(fd))
			return nil
		}
		return want(errno, unix.EPERM)
	},
	"io-uring": func() error {
		var params [120]byte
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno == 0 {
			unix.Close(int(fd))
			return nil
		}
		return want(errno, unix.ENOSYS)
	},
	"ptrace-init": func() error {
		err := unix.PtraceAttach(1)
		return want(err, unix.EPERM)
	},
	"proc1-mem": func() error {
		f, err := os.Open("/proc/1/mem")
		if err == nil {
			f.Close()
		}
		return denied(err)
	},
	"proc1-environ": func() error {
		_, err := os.ReadFile("/proc/1/environ")
		return denied(err)
	},
	"tiocsti": func() error {
		c := byte('x')
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
		return want(errno, unix.EPERM)
	},
	"tiocsti-high-bits": func() error {
		c := byte('x')
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, 0, 1<<32|unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
		return want(errno, unix.EPERM)
	},
	"tioclinux": func() error {
		c := byte(0)
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCLINUX, uintptr(unsafe.Pointer(&c)))
		return want(errno, unix.EPERM)
	},
	"userns": func() error { return want(unix.Unshare(unix.CLONE_NEWUSER), unix.EPERM) },
	"clone-userns": func() error {
		_, _, errno := unix.RawSyscall(unix.SYS_CLONE, unix.CLONE_NEWUSER|uintptr(unix.SIGCHLD), 0, 0)
		return want(errno, unix.EPERM)
	},
	"mount": func() error {
		return want(unix.Mount("tmpfs", "/tmp", "tmpfs", 0, ""), unix.EPERM)
	},
	"bpf": func() error {
		_, _, errno := unix.Syscall(unix.SYS_BPF, 0, 0, 0)
		return want(errno, unix.EPERM)
	},
	"keyctl": func() error {
		_, _, errno := unix.Syscall(unix.SYS_KEYCTL, 0, 0, 0)
		return want(errno, unix.EPERM)
	},
	"perf": func() error {
		_, _, errno := unix.Syscall6(unix.SYS_PERF_EVENT_OPEN, 0, 0, ^uintptr(0), ^uintptr(0), 0, 0)
		return want(errno, unix.EPERM)
	},
	"userfaultfd": func() error {
		_, _, errno := unix.Syscall(unix.SYS_USERFAULTFD, 0, 0, 0)
		return want(errno, unix.EPERM)
	},
	"tcp-direct": func() error {
		// LNK_TARGET is a listener on the host's loopback: inside, the
		// loopback is the sandbox's own, so nothing answers there.
		c, err := net.DialTimeout("tcp", os.Getenv("LNK_TARGET"), 3*time.Second)
		if err == nil {
			c.Close()
		}
		return denied(err)
	},
	"tcp-outside": func() error {
		// A documentation address (TEST-NET-1): the namespace has no route.
		c, err := net.DialTimeout("tcp", "192.0.2.1:80", 3*time.Second)
		if err == nil {
			c.Close()
		}
		return denied(err)
	},
	"udp-dns": func() error {
		c, err := net.DialTimeout("udp", "192.0.2.53:53", 3*time.Second)
		if err == nil {
			_, err = c.Write([]byte("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01"))
			if err == nil {
				_ = c.SetReadDeadline(time.Now().Add(time.Second))
				_, err = c.Read(make([]byte, 512))
			}
			c.Close()
		}
		if err != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, lerr := net.DefaultResolver.LookupHost(ctx, "example.com"); lerr == nil {
				return nil
			}
		}
		return denied(err)
	},
	"relay-proxy": func() error {
		// The relay is there: the proxy answers on 127.0.0.1 and ::1.
		for _, a := range []string{"127.0.0.1:3128", "[::1]:3128"} {
			c, err := net.DialTimeout("tcp", a, 3*time.Second)
			if err != nil {
				return fmt.Errorf("relay %s: %v", a, err)
			}
			c.Close()
		}
		return errors.New("relay answers")
	},
	"exec-tmp": func() error {
		src, err := os.ReadFile("/bin/true")
		if err != nil {
			return err
		}
		p := filepath.Join("/tmp", "true-copy")
		if err := os.WriteFile(p, src, 0o755); err != nil {
			return err
		}
		err = unix.Exec(p, []string{p}, nil)
		return want(err, unix.EACCES)
	},
}

func want(err, errno error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, errno) {
		return err
	}
	return fmt.Errorf("denied, but with %v, not %v", err, errno)
}

func denied(err error) error { return err }

// runVictim runs the named victim and reports on stdout; the exit code is
// 0 when it ran at all.
func runVictim(name string, w io.Writer) int {
	f, ok := victims[name]
	if !ok {
		fmt.Fprintf(w, "unknown victim %q\n", name)
		return 2
	}
	if err := f(); err != nil {
		fmt.Fprintf(w, "DENIED: %v\n", err)
	} else {
		fmt.Fprintln(w, "ALLOWED")
	}
	return 0
}
