package proxy

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"

	"lnk.dev/sandbox/spec"
)

func newTestProxy(t testing.TB, np spec.NetworkPolicy) *Proxy {
	t.Helper()
	p, err := New(Config{SandboxID: testID, Secret: testSecret, Network: np, Resolve: testResolve})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// ownAddr returns a non-loopback address of this machine, if any.
func ownAddr() (netip.Addr, bool) {
	ifas, _ := net.InterfaceAddrs()
	for _, ifa := range ifas {
		pfx, err := netip.ParsePrefix(ifa.String())
		if err == nil && !pfx.Addr().IsLoopback() && !pfx.Addr().IsLinkLocalUnicast() {
			return pfx.Addr(), true
		}
	}
	return netip.Addr{}, false
}

func TestDecide(t *testing.T) {
	p := newTestProxy(t, netPolicy(t, []string{"*.lnk.test", "exact.lnk.example:443"}, []string{"bad.lnk.test", "10.1.0.0/16"}, []string{"127.0.0.1", "10.0.0.0/8"}))
	noLAN := newTestProxy(t, netPolicy(t, []string{"*.lnk.test"}, nil, nil))
	hostMode := netPolicy(t, nil, []string{"bad.lnk.test"}, nil)
	hostMode.Mode = spec.ModeHost
	host := newTestProxy(t, hostMode)
	cases := []struct {
		p     *Proxy
		host  string
		port  uint16
		allow bool
		rule  string
	}{
		{p, "web.lnk.test", 80, true, "hosts[0]"},
		{p, "WEB.lnk.TEST.", 80, true, "hosts[0]"},
		{p, "we%62.lnk.test", 80, true, "hosts[0]"},
		{p, "lnk.test", 80, false, "not in hosts"},
		{p, "bad.lnk.test", 80, false, "deny[0]"},
		{p, "BAD.lnk.test.", 80, false, "deny[0]"},
		{p, "exact.lnk.example", 443, false, "resolve"}, // allowed name, unknown to the resolver
		{p, "exact.lnk.example", 80, false, "not in hosts"},
		{p, "127.0.0.1", 80, true, "lan.allow[0]"},
		{p, "2130706433", 80, true, "lan.allow[0]"},
		{p, "0x7f.1", 80, true, "lan.allow[0]"},
		{p, "127.1", 80, true, "lan.allow[0]"},
		{p, "0177.0.0.1", 80, true, "lan.allow[0]"},
		{p, "127.0.0.2", 80, false, "loopback"},
		{p, "[::ffff:127.0.0.1]", 80, true, "lan.allow[0]"},
		{p, "10.1.2.3", 80, false, "deny[1]"},
		{p, "10.2.3.4", 80, true, "lan.allow[1]"},
		{p, "169.254.169.254", 80, false, "link-local"},
		{p, "meta.lnk.test", 80, false, "link-local"},
		{p, "[::1]", 80, false, "loopback"},
		{p, "[fe80::1%25eth0]", 80, false, "bad host"},
		{p, "93.184.215.14", 80, false, "not in lan.allow"},
		{p, "lnk.sandbox", 80, false, "lnk.sandbox"},
		{p, "web.lnk.test", 0, false, "port 0"},
		{p, "a\nb.lnk.test", 80, false, "bad host"},
		{p, "xn--nxasmq6b.lnk.test", 80, true, "hosts[0]"},
		{noLAN, "web.lnk.test", 80, false, "loopback"},
		{noLAN, "2130706433", 80, false, "loopback"},
		{host, "web.lnk.test", 80, true, "mode host"},
		{host, "127.0.0.1", 80, true, "mode host"},
		{host, "bad.lnk.test", 80, false, "deny[0]"},
	}
	for _, c := range cases {
		v := c.p.decide(context.Background(), c.host, c.port)
		if v.allow != c.allow || !strings.Contains(v.rule, c.rule) {
			t.Errorf("%q:%d: got allow=%v rule=%q, want %v %q", c.host, c.port, v.allow, v.rule, c.allow, c.rule)
		}
		if v.allow && len(v.addrs) == 0 {
			t.Errorf("%q: allowed with no address", c.host)
		}
	}
	// This machine's own addresses are refused unless lan.allow names them.
	if a, ok := ownAddr(); ok {
		if v := noLAN.decide(context.Background(), a.String(), 80); v.allow {
			t.Errorf("own address %s allowed: %+v", a, v)
		}
		pub := newTestProxy(t, netPolicy(t, nil, nil, nil))
		if spec.SpecialAddr(a); true {
			v := pub.decide(context.Background(), a.String(), 80)
			if v.allow {
				t.Errorf("own address %s allowed: %+v", a, v)
			}
		}
		lan := newTestProxy(t, netPolicy(t, nil, nil, []string{a.String()}))
		if v := lan.decide(context.Background(), a.String(), 80); !v.allow {
			t.Errorf("own address %s in lan.allow refused: %+v", a, v)
		}
	}
	if !p.own.has(netip.MustParseAddr("127.0.0.1")) {
		t.Error("127.0.0.1 is not among this machine's addresses")
	}
}

func TestParseAuthority(t *testing.T) {
	for _, c := range []struct {
		in   string
		def  uint16
		host string
		port uint16
	}{
		{"a.com:443", 0, "a.com", 443},
		{"[::1]:8080", 0, "[::1]", 8080},
		{"a.com", 80, "a.com", 80},
		{"[::1]", 80, "[::1]", 80},
		{"1.2.3.4:1", 0, "1.2.3.4", 1},
	} {
		h, p, err := parseAuthority(c.in, c.def)
		if err != nil || h != c.host || p != c.port {
			t.Errorf("%q: %q %d %v", c.in, h, p, err)
		}
	}
	for _, bad := range []string{"", "a.com", "a.com:", ":80", "a.com:0", "a.com:65536", "a.com:+1", "a:b:80", "[::1", "[::1]x", "u@a.com:80", "a.com:80/x", "a.com :80", "[]:80", "a.com:99999999999999999999"} {
		if _, _, err := parseAuthority(bad, 0); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	np := netPolicy(t, nil, nil, nil)
	for _, cfg := range []Config{{SandboxID: "a", Network: np}, {Secret: "s", Network: np}, {SandboxID: "a", Secret: "s"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

// With no Resolve, names go to the system resolver; localhost is still
// loopback and refused without a lan rule.
func TestSystemResolver(t *testing.T) {
	np := netPolicy(t, []string{"localhost"}, nil, nil)
	p, err := New(Config{SandboxID: testID, Secret: testSecret, Network: np})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	v := p.decide(context.Background(), "LOCALHOST.", 80)
	if v.allow || !strings.Contains(v.rule, "loopback") {
		t.Fatalf("%+v", v)
	}
	np.LAN = netPolicy(t, nil, nil, []string{"127.0.0.0/8", "::1"}).LAN
	p2, _ := New(Config{SandboxID: testID, Secret: testSecret, Network: np})
	defer p2.Close()
	if v := p2.decide(context.Background(), "localhost", 80); !v.allow || len(v.addrs) == 0 {
		t.Fatalf("%+v", v)
	}
}
