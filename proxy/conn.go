package proxy

import (
	"context"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
)

var errTooManyFiles = syscall.EMFILE

// socksVersion is the first byte of every SOCKS5 greeting. No HTTP method
// starts with it, so one byte tells the protocols apart.
const socksVersion = 0x05

// HandOffByte is the first byte a relay sends, with the client's socket
// attached (SCM_RIGHTS, Linux), to hand a connection to the proxy instead
// of copying it. The proxy answers HandOffByte when it has taken the
// socket; anything else means the relay must copy the connection itself.
const HandOffByte = 0x00

// errBadHandOff refuses a connection whose first message carried file
// descriptors that are not one TCP socket behind HandOffByte.
var errBadHandOff = errors.New("bad hand-off: want one TCP socket behind byte 0x00")

// clientConn is a connection from the sandbox. It is tracked from accept to
// Close, so that Stop can close it; it replays the byte read to tell SOCKS5
// from HTTP.
type clientConn struct {
	net.Conn  // the accepted connection (*net.UnixConn or *net.TCPConn)
	p         *Proxy
	cred      *peerCred // SO_PEERCRED for unix sockets, else nil
	first     byte
	replay    bool // first is still to be read
	closeOnce sync.Once
}

func (c *clientConn) Read(b []byte) (int, error) {
	if c.replay && len(b) > 0 {
		c.replay = false
		b[0] = c.first
		return 1, nil
	}
	return c.Conn.Read(b)
}

// Close closes the connection once and forgets it.
func (c *clientConn) Close() error {
	err := net.ErrClosed
	c.closeOnce.Do(func() {
		err = c.Conn.Close()
		c.p.mu.Lock()
		delete(c.p.conns, c)
		c.p.active--
		c.p.mu.Unlock()
	})
	return err
}

// upstreamConn is a connection the proxy dialled, tracked until Close.
type upstreamConn struct {
	net.Conn
	p         *Proxy
	closeOnce sync.Once
}

func (c *upstreamConn) Close() error {
	err := net.ErrClosed
	c.closeOnce.Do(func() {
		err = c.Conn.Close()
		c.p.untrack(c)
	})
	return err
}

// serveConn admits a new connection, reads its first byte and hands it to
// the SOCKS5 or the HTTP side.
func (p *Proxy) serveConn(raw net.Conn) {
	start := time.Now()
	c := &clientConn{Conn: raw, p: p}
	if rule := p.admit(c); rule != "" {
		raw.Close()
		p.log(&Record{Time: start, Proto: "", Decision: Deny, Rule: rule})
		return
	}
	c.cred = getPeerCred(raw)
	ctx, cancel := context.WithTimeout(context.Background(), p.lim.pauseWait+time.Second)
	err := p.waitResume(ctx)
	cancel()
	if err != nil {
		c.Close()
		p.log(&Record{Time: start, Decision: Deny, Rule: err.Error()})
		return
	}
	raw.SetReadDeadline(time.Now().Add(p.lim.handshake))
	first, passed, err := readFirst(raw)
	if passed != nil {
		// A relay handed over its client's socket: serve that one, so the
		// data is copied once, not once more through the relay. The relay's
		// unix connection (and its peer credentials) is done with.
		c.Close()
		c = &clientConn{Conn: passed, p: p}
		if rule := p.admit(c); rule != "" {
			passed.Close()
			p.log(&Record{Time: start, Decision: Deny, Rule: rule})
			return
		}
		passed.SetReadDeadline(time.Now().Add(p.lim.handshake))
		first, _, err = readFirst(passed)
	}
	if err != nil {
		c.Close()
		if errors.Is(err, errBadHandOff) {
			p.log(&Record{Time: start, Decision: Deny, Rule: err.Error()})
		}
		return // otherwise nothing asked, nothing to log
	}
	c.first, c.replay = first, true
	if first == socksVersion {
		c.replay = false
		p.serveSOCKS(c, start)
		return
	}
	if !p.hl.hand(c) {
		c.Close()
	}
}

// admit counts and tracks a new client connection, or returns why not.
func (p *Proxy) admit(c *clientConn) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.stopped:
		return ErrStopped.Error()
	case p.active >= p.lim.maxConns:
		return "too many connections at once"
	}
	p.active++
	p.conns[c] = struct{}{}
	return ""
}

// chanListener is the net.Listener the HTTP server accepts from: Serve
// hands it the connections whose first byte is not SOCKS5.
type chanListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newChanListener() *chanListener {
	return &chanListener{ch: make(chan net.Conn), done: make(chan struct{})}
}

// hand gives c to the HTTP server; false once the listener is closed.
func (l *chanListener) hand(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return &net.UnixAddr{Name: "lnk-proxy", Net: "unix"} }

// peerCred is the peer of a unix socket connection.
type peerCred struct{ pid, uid, gid int }

type credKey struct{}

// connContext puts the connection's peer credentials into every request's
// context on it.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if cc, ok := c.(*clientConn); ok && cc.cred != nil {
		return context.WithValue(ctx, credKey{}, cc.cred)
	}
	return ctx
}

// PeerCred returns the SO_PEERCRED of the unix socket connection a route
// request came on, from the request's context. ok is false for TCP
// connections and on systems without peer credentials.
func PeerCred(ctx context.Context) (pid, uid, gid int, ok bool) {
	c, ok := ctx.Value(credKey{}).(*peerCred)
	if !ok {
		return 0, 0, 0, false
	}
	return c.pid, c.uid, c.gid, true
}
