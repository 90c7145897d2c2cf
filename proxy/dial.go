package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"lnk.dev/sandbox/spec"
)

// OwnHost is the proxy's own origin: http://lnk.sandbox/<route>/... reaches
// the routes, never the network.
const OwnHost = "lnk.sandbox"

// verdict is the one decision about a host and port: every protocol asks
// decide, and dials only the addresses it checked.
type verdict struct {
	host  string // normalised name or address, for the log
	port  uint16
	addrs []netip.AddrPort // checked, in the resolver's order
	allow bool
	rule  string
	err   string
}

// decide normalises host once, checks the name, resolves it (only when
// allowed) and checks every address. One refused address refuses the name:
// a name that points inward as well as outward is not to be trusted.
func (p *Proxy) decide(ctx context.Context, host string, port uint16) verdict {
	v := verdict{host: host, port: port}
	if port == 0 {
		v.rule = "port 0"
		return v
	}
	name, addr, err := spec.NormalizeHost(host)
	if err != nil {
		v.rule, v.err = "bad host", err.Error()
		return v
	}
	nw := &p.cfg.Network
	var addrs []netip.Addr
	literal := addr.IsValid()
	if literal {
		v.host = addr.String()
		addrs = []netip.Addr{addr}
	} else {
		v.host = name
		if name == OwnHost {
			v.rule = OwnHost + " is reachable only as http://" + OwnHost + "/"
			return v
		}
		d := nw.CheckName(name, port)
		if !d.Allow {
			v.rule = d.Rule
			return v
		}
		v.rule = d.Rule
		addrs, err = p.resolve(ctx, name)
		if err != nil {
			v.rule, v.err = "resolve", err.Error()
			return v
		}
	}
	for _, a := range addrs {
		a = a.Unmap()
		d := nw.CheckAddr(a, port, literal)
		if d.Allow && nw.Mode == spec.ModeProxy && !strings.HasPrefix(d.Rule, "lan.allow") && p.own.has(a) {
			d = spec.Decision{Rule: "address is this machine's own and not in lan.allow"}
		}
		if !d.Allow {
			v.rule = d.Rule + " (" + a.String() + ")"
			v.addrs = nil
			return v
		}
		if literal {
			v.rule = d.Rule
		} else if strings.HasPrefix(d.Rule, "lan.allow") && !strings.Contains(v.rule, d.Rule) {
			v.rule += "; " + d.Rule
		}
		v.addrs = append(v.addrs, netip.AddrPortFrom(a, port))
	}
	v.allow = true
	return v
}

func (p *Proxy) resolve(ctx context.Context, name string) ([]netip.Addr, error) {
	var addrs []netip.Addr
	var err error
	if p.cfg.Resolve != nil {
		addrs, err = p.cfg.Resolve(ctx, name)
	} else {
		addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", name)
	}
	if err == nil && len(addrs) == 0 {
		err = errors.New("no addresses")
	}
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", name, err)
	}
	return addrs, nil
}

// dialChecked connects to the first of the checked addresses that
// answers. It dials the address, never the name.
func (p *Proxy) dialChecked(ctx context.Context, v *verdict) (net.Conn, netip.AddrPort, error) {
	ctx, cancel := context.WithTimeout(ctx, p.lim.dial)
	defer cancel()
	err := errors.New("no address to dial")
	for _, ap := range v.addrs {
		var c net.Conn
		if p.cfg.Dial != nil {
			c, err = p.cfg.Dial(ctx, "tcp", ap.String())
		} else {
			c, err = p.dialer.DialContext(ctx, "tcp", ap.String())
		}
		if err != nil {
			continue
		}
		uc := &upstreamConn{Conn: c, p: p}
		if !p.track(uc) {
			c.Close()
			return nil, ap, ErrStopped
		}
		return uc, ap, nil
	}
	return nil, netip.AddrPort{}, err
}

// ownAddrs caches this machine's interface addresses.
type ownAddrs struct {
	mu  sync.Mutex // guards the fields below
	at  time.Time
	set map[netip.Addr]bool
}

const ownAddrsTTL = 10 * time.Second

// has reports whether a is an address of one of this machine's
// interfaces. When the interfaces cannot be listed it says yes: refuse
// rather than guess.
func (o *ownAddrs) has(a netip.Addr) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.set == nil || time.Since(o.at) > ownAddrsTTL {
		o.at = time.Now()
		ifas, err := net.InterfaceAddrs()
		if err != nil {
			o.set = nil
			return true
		}
		o.set = map[netip.Addr]bool{}
		for _, ifa := range ifas {
			if pfx, err := netip.ParsePrefix(ifa.String()); err == nil {
				o.set[pfx.Addr().Unmap().WithZone("")] = true
			}
		}
	}
	return o.set[a.Unmap()]
}

// parseAuthority parses a CONNECT target or a URL's host: "host:port",
// "[v6]:port", or with defPort > 0 also "host" and "[v6]". It refuses
// user info, paths, empty hosts and ports outside 1-65535.
func parseAuthority(s string, defPort uint16) (host string, port uint16, err error) {
	if s == "" || len(s) > 300 {
		return "", 0, errors.New("want host:port")
	}
	if strings.ContainsAny(s, "@/?#\\ \t\r\n") {
		return "", 0, errors.New("want host:port, without user, path or spaces")
	}
	host, ps := s, ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, errors.New("no closing bracket")
		}
		host, ps = s[:end+1], s[end+1:]
		if ps != "" && ps[0] != ':' {
			return "", 0, errors.New("want [v6]:port")
		}
		ps = strings.TrimPrefix(ps, ":")
	} else if i := strings.LastIndexByte(s, ':'); i >= 0 {
		host, ps = s[:i], s[i+1:]
		if strings.Contains(host, ":") {
			return "", 0, errors.New("put an IPv6 address in brackets")
		}
	}
	if host == "" || host == "[]" {
		return "", 0, errors.New("empty host")
	}
	if ps == "" {
		if defPort == 0 || strings.HasSuffix(s, ":") {
			return "", 0, errors.New("want host:port")
		}
		return host, defPort, nil
	}
	n := 0
	for _, c := range []byte(ps) {
		if c < '0' || c > '9' || n > 65535 {
			return "", 0, errors.New("port is not a number from 1 to 65535")
		}
		n = n*10 + int(c-'0')
	}
	if n < 1 || n > 65535 {
		return "", 0, errors.New("port is not a number from 1 to 65535")
	}
	return host, uint16(n), nil
}
