//go:build !linux && !darwin

package proxy

import "net"

// getPeerCred returns nil: peer credentials are read on Linux and macOS only.
func getPeerCred(net.Conn) *peerCred { return nil }
