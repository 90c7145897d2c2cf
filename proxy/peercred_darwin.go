//go:build darwin

package proxy

import (
	"net"

	"golang.org/x/sys/unix"
)

// getPeerCred reads LOCAL_PEERPID and LOCAL_PEERCRED of a unix socket
// connection (macOS): the daemon learns a sandbox's init pid from its
// session, as from SO_PEERCRED on Linux.
func getPeerCred(c net.Conn) *peerCred {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return nil
	}
	var (
		pid  int
		cred *unix.Xucred
		gerr error
	)
	if err := rc.Control(func(fd uintptr) {
		if pid, gerr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID); gerr == nil {
			cred, gerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		}
	}); err != nil || gerr != nil || pid <= 0 {
		return nil
	}
	gid := -1
	if cred.Ngroups > 0 {
		gid = int(cred.Groups[0])
	}
	return &peerCred{pid: pid, uid: int(cred.Uid), gid: gid}
}
