//go:build linux

package proxy

import (
	"net"

	"golang.org/x/sys/unix"
)

// getPeerCred reads SO_PEERCRED of a unix socket connection.
func getPeerCred(c net.Conn) *peerCred {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return nil
	}
	var cred *unix.Ucred
	var gerr error
	if err := rc.Control(func(fd uintptr) {
		cred, gerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || gerr != nil {
		return nil
	}
	return &peerCred{pid: int(cred.Pid), uid: int(cred.Uid), gid: int(cred.Gid)}
}
