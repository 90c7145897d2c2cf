//go:build !linux && !windows && !darwin

package safesocket

import (
	"errors"
	"net"
)

func peerUID(net.Conn) (int, error) {
	return 0, errors.New("peer credentials are not supported on this system")
}
