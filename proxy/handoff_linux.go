//go:build linux

package proxy

import (
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// readFirst reads the first byte of c. On a unix socket it also takes a
// handed-off client socket (see HandOffByte): it then acknowledges the
// hand-off and returns the socket as passed, and the caller serves that
// instead of c. Any other descriptors received are closed unused.
func readFirst(c net.Conn) (first byte, passed net.Conn, err error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		var b [1]byte
		_, err = c.Read(b[:])
		return b[0], nil, err
	}
	var b [1]byte
	oob := make([]byte, unix.CmsgSpace(4*1))
	n, oobn, flags, _, err := uc.ReadMsgUnix(b[:], oob)
	if err != nil {
		return 0, nil, err
	}
	if n == 0 {
		return 0, nil, net.ErrClosed
	}
	fds := receivedFDs(oob[:oobn])
	if len(fds) == 0 {
		if b[0] == HandOffByte {
			return 0, nil, errBadHandOff
		}
		return b[0], nil, nil
	}
	if b[0] != HandOffByte || len(fds) != 1 || flags&unix.MSG_CTRUNC != 0 {
		closeFDs(fds)
		return 0, nil, errBadHandOff
	}
	f := os.NewFile(uintptr(fds[0]), "handed-off")
	fc, err := net.FileConn(f) // a dup: the received descriptor is closed below
	f.Close()
	if err != nil {
		return 0, nil, errBadHandOff
	}
	tc, ok := fc.(*net.TCPConn)
	if !ok {
		fc.Close()
		return 0, nil, errBadHandOff
	}
	if _, err := uc.Write([]byte{HandOffByte}); err != nil {
		tc.Close()
		return 0, nil, err
	}
	return 0, tc, nil
}

// receivedFDs returns the descriptors of every SCM_RIGHTS message in oob.
func receivedFDs(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if rights, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, rights...)
		}
	}
	return fds
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
