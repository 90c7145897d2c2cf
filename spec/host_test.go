package spec

import (
	"net/netip"
	"strings"
	"testing"
)

func TestPunycode(t *testing.T) {
	// Vectors from RFC 3492 section 7.1 and common IDNs.
	cases := map[string]string{
		"bücher":            "xn--bcher-kva",
		"münchen":           "xn--mnchen-3ya",
		"ünicode":           "xn--nicode-2ya",
		"例え":                "xn--r8jz45g",
		"ليهمابتكلموشعربي؟": "xn--egbpdaj6bu4bxfgehfvwxn",
		"他们为什么不说中文":         "xn--ihqwcrb4cv8a8dqg056pqjye",
		"abc":               "abc",
	}
	for in, want := range cases {
		got, err := toASCIILabel(in)
		if err != nil || got != want {
			t.Errorf("toASCIILabel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestHostPatterns(t *testing.T) {
	cases := []struct {
		pattern string
		host    string
		port    uint16
		want    bool
	}{
		{"example.com", "example.com", 443, true},
		{"example.com", "www.example.com", 443, false},
		{"example.com", "example.com.evil.com", 443, false},
		{"*.example.com", "example.com", 443, false},
		{"*.example.com", "a.example.com", 443, true},
		{"*.example.com", "a.b.example.com", 80, true},
		{"*.example.com", "badexample.com", 443, false},
		{"*.example.com", "a.example.com.evil.com", 443, false},
		{"EXAMPLE.com.", "example.com", 80, true},
		{"example.com:443", "example.com", 443, true},
		{"example.com:443", "example.com", 80, false},
		{"*", "anything.example", 1, true},
		{"bücher.example", "xn--bcher-kva.example", 443, true},
		{"*.bücher.example", "www.xn--bcher-kva.example", 443, true},
	}
	for _, c := range cases {
		p, err := ParseHostPattern(c.pattern)
		if err != nil {
			t.Fatalf("ParseHostPattern(%q): %v", c.pattern, err)
		}
		if got := p.MatchName(c.host, c.port); got != c.want {
			t.Errorf("%q.MatchName(%q, %d) = %v, want %v", c.pattern, c.host, c.port, got, c.want)
		}
	}
}

func TestNormalizeHost(t *testing.T) {
	cases := []struct {
		in       string
		name     string
		addr     string
		errorHas string
	}{
		{in: "Example.COM.", name: "example.com"},
		{in: "ex%61mple.com", name: "example.com"},
		{in: "BÜCHER.example", name: "xn--bcher-kva.example"},
		{in: "2130706433", addr: "127.0.0.1"},
		{in: "0x7f.1", addr: "127.0.0.1"},
		{in: "127.1", addr: "127.0.0.1"},
		{in: "0177.0.0.1", addr: "127.0.0.1"},
		{in: "0x7f000001", addr: "127.0.0.1"},
		{in: "127.0.0.1.", addr: "127.0.0.1"},
		{in: "169.254.43518", addr: "169.254.169.254"},
		{in: "[::1]", addr: "::1"},
		{in: "::ffff:127.0.0.1", addr: "127.0.0.1"},
		{in: "[::ffff:10.0.0.1]", addr: "10.0.0.1"},
		{in: "256.0.0.1", errorHas: "looks like an address"},
		{in: "1.2.3.4.5", errorHas: "looks like an address"},
		{in: "fe80::1%eth0", errorHas: "zone"},
		{in: "evil.com\r\nX-Injected: 1", errorHas: "no host name may hold"},
		{in: "a..b", errorHas: "empty label"},
		{in: "%zz", errorHas: "percent-escape"},
		{in: "exa%00mple.com", errorHas: "no host name may hold"},
		{in: "example.com\u202e", errorHas: "no host name may hold"},
	}
	for _, c := range cases {
		name, addr, err := NormalizeHost(c.in)
		if c.errorHas != "" {
			if err == nil || !strings.Contains(err.Error(), c.errorHas) {
				t.Errorf("NormalizeHost(%q) = %q %v %v, want error with %q", c.in, name, addr, err, c.errorHas)
			}
			continue
		}
		if err != nil {
			t.Errorf("NormalizeHost(%q): %v", c.in, err)
			continue
		}
		gotAddr := ""
		if addr.IsValid() {
			gotAddr = addr.String()
		}
		if name != c.name || gotAddr != c.addr {
			t.Errorf("NormalizeHost(%q) = %q %q, want %q %q", c.in, name, gotAddr, c.name, c.addr)
		}
	}
}

func TestSpecialAddr(t *testing.T) {
	special := []string{"127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1",
		"169.254.169.254", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1",
		"fd00::1", "ff02::1", "::ffff:127.0.0.1", "64:ff9b::a00:1", "2002:a00:1::1", "::a00:1"}
	for _, s := range special {
		if ok, _ := SpecialAddr(netip.MustParseAddr(s)); !ok {
			t.Errorf("SpecialAddr(%s) = false, want true", s)
		}
	}
	for _, s := range []string{"93.184.216.34", "1.1.1.1", "2606:4700::1111"} {
		if ok, why := SpecialAddr(netip.MustParseAddr(s)); ok {
			t.Errorf("SpecialAddr(%s) = true (%s), want false", s, why)
		}
	}
}

func TestNetworkDecisions(t *testing.T) {
	s, err := Parse("t.toml", []byte(`[network]
hosts = ["example.com", "*.example.org", "api.example.net:443"]
deny = ["bad.example.org", "93.184.216.0/24"]
[network.lan]
allow = ["127.0.0.1:8080", "192.168.1.0/24"]
`))
	if err != nil {
		t.Fatal(err)
	}
	n := compileNetwork(&s.Network)
	names := []struct {
		name string
		port uint16
		want bool
	}{
		{"example.com", 443, true},
		{"www.example.com", 443, false},
		{"a.example.org", 80, true},
		{"bad.example.org", 443, false},
		{"api.example.net", 443, true},
		{"api.example.net", 80, false},
		{"other.test", 443, false},
	}
	for _, c := range names {
		if d := n.CheckName(c.name, c.port); d.Allow != c.want || d.Rule == "" {
			t.Errorf("CheckName(%s, %d) = %+v, want allow=%v with a rule", c.name, c.port, d, c.want)
		}
	}
	addrs := []struct {
		addr    string
		port    uint16
		literal bool
		want    bool
	}{
		{"1.1.1.1", 443, false, true},
		{"1.1.1.1", 443, true, false}, // an address named by the sandbox needs lan
		{"93.184.216.34", 443, false, false},
		{"127.0.0.1", 8080, false, true},
		{"127.0.0.1", 8081, false, false},
		{"::ffff:127.0.0.1", 8080, true, true},
		{"192.168.1.7", 22, true, true},
		{"192.168.2.7", 22, false, false},
		{"169.254.169.254", 80, false, false},
		{"10.0.0.1", 80, false, false},
	}
	for _, c := range addrs {
		if d := n.CheckAddr(netip.MustParseAddr(c.addr), c.port, c.literal); d.Allow != c.want {
			t.Errorf("CheckAddr(%s, %d, %v) = %+v, want allow=%v", c.addr, c.port, c.literal, d, c.want)
		}
	}
	host := NetworkPolicy{Mode: ModeHost, Deny: n.Deny}
	if d := host.CheckName("anything.test", 1); !d.Allow {
		t.Errorf("mode host refused a name: %+v", d)
	}
	if d := host.CheckName("bad.example.org", 1); d.Allow {
		t.Errorf("mode host let a denied name through: %+v", d)
	}
}

func TestValidToolName(t *testing.T) {
	for s, want := range map[string]bool{"github": true, "fs_2": true, "a-b": true, "": false, "-x": false,
		"_x": false, "My": false, "a b": false, strings.Repeat("a", 63): true, strings.Repeat("a", 64): false} {
		if got := ValidToolName(s); got != want {
			t.Errorf("ValidToolName(%q) = %v, want %v", s, got, want)
		}
	}
}
