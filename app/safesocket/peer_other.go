//go:build !linux && !windows

package safesocket

import (
	"fmt"
	"net"
	"os"
)

type identity struct{ uid int }

func selfIdentity() (identity, error) { return identity{uid: os.Getuid()}, nil }

// checkPeer refuses a peer of another uid. Where the OS does not say who
// the peer is, it is refused.
func checkPeer(c net.Conn, self identity) (Peer, error) {
	uid, err := peerUID(c)
	if err != nil {
		return Peer{}, &AccessDeniedError{Reason: "cannot read the peer's credentials: " + err.Error()}
	}
	if uid != self.uid {
		return Peer{}, &AccessDeniedError{Reason: fmt.Sprintf("peer uid %d is not this user (uid %d)", uid, self.uid)}
	}
	return Peer{UID: uid}, nil
}
