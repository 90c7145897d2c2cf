package proxy

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"lnk.dev/sandbox/spec"
)

// FuzzSOCKS feeds the SOCKS5 parsers: greeting, RFC 1929 auth, request.
func FuzzSOCKS(f *testing.F) {
	f.Add([]byte{5, 1, 2, 1, 1, 'a', 1, 'b', 5, 1, 0, 3, 4, 'a', '.', 'c', 'o', 0, 80})
	f.Add([]byte{5, 1, 2, 1, 0, 0, 5, 1, 0, 1, 127, 0, 0, 1, 1, 187})
	f.Add([]byte{5, 1, 2, 1, 0, 0, 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 22})
	f.Add([]byte{5, 0})
	f.Add([]byte{5, 1, 2, 1, 0, 0, 5, 2, 0, 9})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		userPass, err := readSOCKSGreeting(r)
		if err != nil || !userPass {
			return
		}
		if _, _, err := readSOCKSAuth(r); err != nil {
			return
		}
		req, code, err := readSOCKSRequest(r)
		if err == nil {
			if code != socksSucceeded || req.cmd != socksCmdConnect || req.host == "" {
				t.Fatalf("accepted %+v code %d", req, code)
			}
		} else if code == socksSucceeded {
			t.Fatalf("error %v with success code", err)
		}
	})
}

// FuzzParseAuthority checks CONNECT targets: what is accepted has a host
// and a port, and no user, path or space.
func FuzzParseAuthority(f *testing.F) {
	for _, s := range []string{"a.com:443", "[::1]:80", "a.com", "u@a:1", "a:b:c", "[::1", "1.2.3.4:65535", "x:0"} {
		f.Add(s, uint16(0))
		f.Add(s, uint16(80))
	}
	f.Fuzz(func(t *testing.T, s string, def uint16) {
		host, port, err := parseAuthority(s, def)
		if err != nil {
			return
		}
		if host == "" || port == 0 || strings.ContainsAny(host, "@/ \r\n") {
			t.Fatalf("%q: accepted host %q port %d", s, host, port)
		}
		if def == 0 {
			n, err := strconv.Atoi(s[strings.LastIndexByte(s, ':')+1:])
			if err != nil || n != int(port) {
				t.Fatalf("%q: port %d not from the target", s, port)
			}
		}
	})
}

// FuzzAbsoluteForm parses a request line and headers as the server does
// and checks absolute-form handling and the decision on its host.
func FuzzAbsoluteForm(f *testing.F) {
	for _, s := range []string{
		"GET http://a.lnk.test/x HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET http://u:p@a.lnk.test:8080/x?y#z HTTP/1.1\r\n\r\n",
		"GET http://[::1]:80/ HTTP/1.1\r\n\r\n",
		"GET http://2130706433/ HTTP/1.1\r\n\r\n",
		"GET http://lnk.sandbox/health HTTP/1.1\r\n\r\n",
		"GET https://a.lnk.test/ HTTP/1.1\r\n\r\n",
		"GET http:a.lnk.test HTTP/1.1\r\n\r\n",
		"GET http://a%2elnk.test/ HTTP/1.1\r\n\r\n",
	} {
		f.Add(s)
	}
	p, err := New(Config{SandboxID: testID, Secret: testSecret, Network: netPolicy(f, []string{"*.lnk.test"}, []string{"bad.lnk.test"}, []string{"127.0.0.1"}), Resolve: testResolve})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(s)))
		if err != nil {
			return
		}
		host, port, err := checkAbsolute(r)
		if err != nil {
			return
		}
		if port == 0 || host == "" {
			t.Fatalf("%q: host %q port %d", s, host, port)
		}
		if isOwnOrigin(host) {
			return
		}
		v := p.decide(context.Background(), host, port)
		if !v.allow {
			return
		}
		for _, ap := range v.addrs {
			if d := p.cfg.Network.CheckAddr(ap.Addr(), port, false); !d.Allow {
				t.Fatalf("%q: dials %v that the rules refuse", s, ap)
			}
		}
		name, _, _ := spec.NormalizeHost(host)
		if name != "" && p.cfg.Network.CheckName(name, port).Allow == false {
			t.Fatalf("%q: allowed a name the rules refuse", s)
		}
	})
}

// FuzzHostMatch checks normalisation and matching: normalising is
// idempotent, and a denied name is never allowed in any spelling.
func FuzzHostMatch(f *testing.F) {
	for _, s := range []string{"bad.lnk.test", "BAD.lnk.test.", "b%61d.lnk.test", "x.bad.lnk.test", "xn--bad-.lnk.test", "0x7f.1", "127.1", "[::ffff:127.0.0.1]", "bücher.lnk.test"} {
		f.Add(s)
	}
	np := netPolicy(f, []string{"*.lnk.test"}, []string{"bad.lnk.test", "*.bad.lnk.test"}, nil)
	f.Fuzz(func(t *testing.T, s string) {
		name, addr, err := spec.NormalizeHost(s)
		if err != nil {
			return
		}
		if addr.IsValid() {
			if np.CheckAddr(addr, 80, true).Allow {
				t.Fatalf("%q: literal %v allowed with no lan rule", s, addr)
			}
			return
		}
		again, _, err := spec.NormalizeHost(name)
		if err != nil || again != name {
			t.Fatalf("%q: normalised %q, then %q (%v)", s, name, again, err)
		}
		d := np.CheckName(name, 80)
		if d.Allow && (name == "bad.lnk.test" || strings.HasSuffix(name, ".bad.lnk.test")) {
			t.Fatalf("%q (%q): a denied name is allowed: %s", s, name, d.Rule)
		}
		if d.Allow && !strings.HasSuffix(name, ".lnk.test") {
			t.Fatalf("%q (%q): allowed outside the pattern", s, name)
		}
	})
}
