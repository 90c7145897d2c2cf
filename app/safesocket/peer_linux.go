package safesocket

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// identity is what a peer must share with this process.
type identity struct {
	uid   int
	netns nsID
}

type nsID struct{ dev, ino uint64 }

func selfIdentity() (identity, error) {
	ns, err := netnsOf("self")
	if err != nil {
		return identity{}, fmt.Errorf("safesocket: read this process's network namespace: %w", err)
	}
	return identity{uid: os.Getuid(), netns: ns}, nil
}

func netnsOf(pid string) (nsID, error) {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/"+pid+"/ns/net", &st); err != nil {
		return nsID{}, err
	}
	return nsID{dev: uint64(st.Dev), ino: st.Ino}, nil
}

// Credentials returns the SO_PEERCRED of a unix connection: pid, uid, gid,
// as the kernel saw them when the peer connected.
func Credentials(c net.Conn) (pid, uid, gid int, err error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, 0, 0, fmt.Errorf("safesocket: not a unix connection")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, 0, 0, err
	}
	var cred *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, 0, 0, err
	}
	if serr != nil {
		return 0, 0, 0, serr
	}
	return int(cred.Pid), int(cred.Uid), int(cred.Gid), nil
}

// checkPeer refuses a peer of another uid, and a peer whose network
// namespace differs from ours or cannot be read (a process in a sandbox,
// or one that hides itself, is not trusted).
func checkPeer(c net.Conn, self identity) (Peer, error) {
	pid, uid, _, err := Credentials(c)
	if err != nil {
		return Peer{}, &AccessDeniedError{Reason: "cannot read the peer's credentials: " + err.Error()}
	}
	if uid != self.uid {
		return Peer{}, &AccessDeniedError{Reason: fmt.Sprintf("peer uid %d is not this user (uid %d)", uid, self.uid)}
	}
	if pid <= 0 {
		return Peer{}, &AccessDeniedError{Reason: "the peer's pid is not visible here (another pid namespace)"}
	}
	ns, err := netnsOf(strconv.Itoa(pid))
	if err != nil {
		return Peer{}, &AccessDeniedError{Reason: fmt.Sprintf("cannot read peer pid %d's network namespace: %v", pid, err)}
	}
	if ns != self.netns {
		return Peer{}, &AccessDeniedError{Reason: fmt.Sprintf("peer pid %d runs in another network namespace (inside a sandbox?)", pid)}
	}
	return Peer{PID: pid, UID: uid}, nil
}
