//go:build windows

package proxy

import (
	"net"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sioAFUnixGetPeerPID is SIO_AF_UNIX_GETPEERPID: _WSAIOR(IOC_VENDOR, 256).
const sioAFUnixGetPeerPID = 0x58000100

// getPeerCred reads the peer's pid of a unix socket connection (Windows
// 10 1803 and later): the daemon learns the runner's pid from its
// session. Windows has no uid; the socket's folder is the user's own.
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
		pid  uint32
		gerr error
	)
	if err := rc.Control(func(fd uintptr) {
		var n uint32
		gerr = windows.WSAIoctl(windows.Handle(fd), sioAFUnixGetPeerPID, nil, 0,
			(*byte)(unsafe.Pointer(&pid)), uint32(unsafe.Sizeof(pid)), &n, nil, 0)
	}); err != nil || gerr != nil || pid == 0 {
		return nil
	}
	return &peerCred{pid: int(pid), uid: -1, gid: -1}
}
