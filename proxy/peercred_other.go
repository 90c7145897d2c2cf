//go:build !linux && !darwin && !windows

package proxy

import "net"

// getPeerCred returns nil: peer credentials are read on Linux, macOS and Windows only.
func getPeerCred(net.Conn) *peerCred { return nil }
