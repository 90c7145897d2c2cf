//go:build !linux

package proxy

import "net"

// readFirst reads the first byte of c. Hand-off of client sockets
// (SCM_RIGHTS) is a Linux sandbox's: elsewhere there is none.
func readFirst(c net.Conn) (first byte, passed net.Conn, err error) {
	var b [1]byte
	_, err = c.Read(b[:])
	return b[0], nil, err
}
