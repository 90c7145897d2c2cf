package safesocket

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
)

// MaxPathLen is the longest unix socket path the kernel takes (sun_path
// less its terminating NUL, the smaller of Linux's and macOS's).
const MaxPathLen = 103

// ErrInUse is returned by Listen when another server already answers on
// the socket.
var ErrInUse = errors.New("safesocket: a server already answers on this socket")

// AccessDeniedError says why a peer was refused.
type AccessDeniedError struct {
	Reason string
}

func (e *AccessDeniedError) Error() string { return "access denied: " + e.Reason }

// IsAccessDenied reports whether err is or wraps an *AccessDeniedError.
func IsAccessDenied(err error) bool {
	var a *AccessDeniedError
	return errors.As(err, &a)
}

// Peer is what the operating system says about the process at the other
// end of a connection.
type Peer struct {
	PID int // 0 where the OS does not say
	UID int // -1 where the OS does not say (Windows: the pipe's ACL decides)
}

// Listener is a net.Listener whose Accept returns only connections from
// peers that passed the check.
type Listener struct {
	net.Listener
	check   func(net.Conn) (Peer, error)
	refused atomic.Int64
	// OnRefuse, if set before the first Accept, is called for each refused
	// peer with the reason.
	OnRefuse func(error)
}

// Accept waits for the next connection from an allowed peer. Refused peers
// are closed and skipped.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.check == nil {
			return c, nil
		}
		p, err := l.check(c)
		if err == nil {
			return &Conn{Conn: c, Peer: p}, nil
		}
		l.refused.Add(1)
		c.Close()
		if l.OnRefuse != nil {
			l.OnRefuse(err)
		}
	}
}

// Refused returns how many peers were refused so far.
func (l *Listener) Refused() int64 { return l.refused.Load() }

// Conn is an accepted connection and its checked peer.
type Conn struct {
	net.Conn
	Peer Peer
}

// PeerOf returns the checked peer of a connection accepted by a Listener.
func PeerOf(c net.Conn) (Peer, bool) {
	sc, ok := c.(*Conn)
	if !ok {
		return Peer{}, false
	}
	return sc.Peer, true
}

// Listen listens on the control socket at path, refusing other users (and,
// on Linux, other network namespaces). See the package doc.
func Listen(path string) (*Listener, error) {
	l, check, err := listen(path)
	if err != nil {
		return nil, err
	}
	return &Listener{Listener: l, check: check}, nil
}

// Dial connects to the control socket at path.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	c, err := dial(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("safesocket: dial %s: %w", path, err)
	}
	return c, nil
}
