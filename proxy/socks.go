package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"
)

// SOCKS5 constants (RFC 1928, RFC 1929).
const (
	socksAuthNone     = 0x00
	socksAuthUserPass = 0x02
	socksNoMethod     = 0xff
	socksAuthVersion  = 0x01
	socksCmdConnect   = 0x01
	socksATYPv4       = 0x01
	socksATYPDomain   = 0x03
	socksATYPv6       = 0x04

	socksSucceeded       = 0x00
	socksGeneralFailure  = 0x01
	socksNotAllowed      = 0x02
	socksHostUnreachable = 0x04
	socksRefused         = 0x05
	socksCmdUnsupported  = 0x07
	socksATYPUnsupported = 0x08
)

// socksRequest is a parsed SOCKS5 request.
type socksRequest struct {
	cmd  byte
	host string // an address as text, or the domain name as sent
	port uint16
}

// readSOCKSGreeting reads VER NMETHODS METHODS and reports whether
// username/password is offered.
func readSOCKSGreeting(r io.Reader) (userPass bool, err error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return false, fmt.Errorf("socks5 greeting: %w", err)
	}
	if h[0] != socksVersion {
		return false, fmt.Errorf("socks5 greeting: version %d", h[0])
	}
	if h[1] == 0 {
		return false, errors.New("socks5 greeting: no methods")
	}
	methods := make([]byte, h[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return false, fmt.Errorf("socks5 greeting: %w", err)
	}
	for _, m := range methods {
		if m == socksAuthUserPass {
			return true, nil
		}
	}
	return false, nil
}

// readSOCKSAuth reads an RFC 1929 username/password request.
func readSOCKSAuth(r io.Reader) (user, pass string, err error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", "", fmt.Errorf("socks5 auth: %w", err)
	}
	if h[0] != socksAuthVersion {
		return "", "", fmt.Errorf("socks5 auth: version %d", h[0])
	}
	u := make([]byte, int(h[1])+1) // the name, then PLEN
	if _, err := io.ReadFull(r, u); err != nil {
		return "", "", fmt.Errorf("socks5 auth: %w", err)
	}
	pw := make([]byte, u[len(u)-1])
	if _, err := io.ReadFull(r, pw); err != nil {
		return "", "", fmt.Errorf("socks5 auth: %w", err)
	}
	return string(u[:len(u)-1]), string(pw), nil
}

// readSOCKSRequest reads VER CMD RSV ATYP DST.ADDR DST.PORT. On error,
// code is the reply to send.
func readSOCKSRequest(r io.Reader) (req socksRequest, code byte, err error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return req, socksGeneralFailure, fmt.Errorf("socks5 request: %w", err)
	}
	if h[0] != socksVersion || h[2] != 0 {
		return req, socksGeneralFailure, fmt.Errorf("socks5 request: bad header % x", h[:3])
	}
	req.cmd = h[1]
	switch h[3] {
	case socksATYPv4, socksATYPv6:
		b := make([]byte, 4)
		if h[3] == socksATYPv6 {
			b = make([]byte, 16)
		}
		if _, err := io.ReadFull(r, b); err != nil {
			return req, socksGeneralFailure, fmt.Errorf("socks5 request: %w", err)
		}
		a, _ := netip.AddrFromSlice(b)
		req.host = a.String()
		if a.Is6() {
			req.host = "[" + req.host + "]"
		}
	case socksATYPDomain:
		var n [1]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return req, socksGeneralFailure, fmt.Errorf("socks5 request: %w", err)
		}
		if n[0] == 0 {
			return req, socksGeneralFailure, errors.New("socks5 request: empty domain name")
		}
		b := make([]byte, n[0])
		if _, err := io.ReadFull(r, b); err != nil {
			return req, socksGeneralFailure, fmt.Errorf("socks5 request: %w", err)
		}
		req.host = string(b)
	default:
		return req, socksATYPUnsupported, fmt.Errorf("socks5 request: address type %d", h[3])
	}
	var pb [2]byte
	if _, err := io.ReadFull(r, pb[:]); err != nil {
		return req, socksGeneralFailure, fmt.Errorf("socks5 request: %w", err)
	}
	req.port = uint16(pb[0])<<8 | uint16(pb[1])
	if req.cmd != socksCmdConnect {
		return req, socksCmdUnsupported, fmt.Errorf("socks5 request: command %d (only CONNECT is served)", req.cmd)
	}
	return req, socksSucceeded, nil
}

// socksReply is a reply with BND.ADDR 0.0.0.0:0: the sandbox learns
// nothing of the host's addresses.
func socksReply(code byte) []byte {
	return []byte{socksVersion, code, 0, socksATYPv4, 0, 0, 0, 0, 0, 0}
}

// serveSOCKS serves one SOCKS5 connection; its first byte was read.
func (p *Proxy) serveSOCKS(c *clientConn, start time.Time) {
	rec := &Record{Time: start, Proto: ProtoSOCKS5, Decision: Deny}
	deny := func(reply []byte, rule string, err error) {
		if reply != nil {
			c.Conn.Write(reply)
		}
		c.Close()
		rec.Rule = rule
		if err != nil {
			rec.Error = err.Error()
		}
		p.log(rec)
	}
	raw := c.Conn
	raw.SetDeadline(time.Now().Add(p.lim.handshake))
	in := io.MultiReader(oneByte(socksVersion), raw)
	userPass, err := readSOCKSGreeting(in)
	if err != nil {
		deny(nil, "bad request", err)
		return
	}
	if !userPass {
		deny([]byte{socksVersion, socksNoMethod}, "credentials", errors.New("socks5: the client offered no username/password method"))
		return
	}
	raw.Write([]byte{socksVersion, socksAuthUserPass})
	user, pass, err := readSOCKSAuth(raw)
	if err != nil {
		deny(nil, "bad request", err)
		return
	}
	if !p.credentialsOK(user, pass) {
		deny([]byte{socksAuthVersion, 0x01}, "credentials", nil)
		return
	}
	raw.Write([]byte{socksAuthVersion, 0x00})
	req, code, err := readSOCKSRequest(raw)
	rec.Host, rec.Port = clip(req.host), req.port
	if err != nil {
		deny(socksReply(code), "bad request", err)
		return
	}
	p.socksConnect(c, rec, req, deny)
}

// socksConnect decides, dials and tunnels a SOCKS5 CONNECT.
func (p *Proxy) socksConnect(c *clientConn, rec *Record, req socksRequest, deny func([]byte, string, error)) {
	raw := c.Conn
	ctx, cancel := contextUntil(p.lim.pauseWait + p.lim.dial)
	defer cancel()
	if err := p.waitResume(ctx); err != nil {
		deny(socksReply(socksGeneralFailure), err.Error(), nil)
		return
	}
	v := p.decide(ctx, req.host, req.port)
	rec.Host, rec.Rule, rec.Error = v.host, v.rule, v.err
	if !v.allow {
		deny(socksReply(socksNotAllowed), v.rule, nil)
		return
	}
	up, ap, err := p.dialChecked(ctx, &v)
	if err != nil {
		rec.Decision, rec.Addr = Allow, ap.String()
		code := byte(socksHostUnreachable)
		var ne *net.OpError
		if errors.As(err, &ne) && ne.Op == "dial" && !ne.Timeout() {
			code = socksRefused
		}
		deny(socksReply(code), v.rule, err)
		return
	}
	rec.Decision, rec.Addr = Allow, ap.String()
	if _, err := raw.Write(socksReply(socksSucceeded)); err != nil {
		up.Close()
		c.Close()
		rec.Error = err.Error()
		p.log(rec)
		return
	}
	raw.SetDeadline(time.Time{})
	upRaw := up
	if uc, ok := up.(*upstreamConn); ok {
		upRaw = uc.Conn
	}
	u, d, err := p.tunnel(raw, upRaw, c, up)
	rec.Up, rec.Down = u, d
	if err != nil && !isClosedErr(err) {
		rec.Error = err.Error()
	}
	p.log(rec)
}

// oneByte is a reader of the byte already read from the connection.
func oneByte(b byte) io.Reader { return &byteReader{b: b} }

type byteReader struct {
	b    byte
	done bool
}

func (r *byteReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0], r.done = r.b, true
	return 1, nil
}

func contextUntil(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}
