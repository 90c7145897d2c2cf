package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes the parser panic or hang, and that
// every error it returns names the file.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"testdata/good", "testdata/bad"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err == nil {
				f.Add(data)
			}
		}
	}
	f.Add(DefaultTOML)
	f.Add(ExampleTOML)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("f.toml", data)
		if err != nil {
			for _, e := range Errors(err) {
				if e.File != "f.toml" {
					t.Fatalf("error does not name the file: %v", e)
				}
			}
			if len(Errors(err)) == 0 {
				t.Fatalf("error is not a *spec.Error: %v", err)
			}
			return
		}
		// Whatever parsed must compile without dropping a rule.
		n := compileNetwork(&s.Network)
		if len(n.Hosts) != len(s.Network.Hosts) || len(n.Deny) != len(s.Network.Deny) || len(n.LAN) != len(s.Network.LAN.Allow) {
			t.Fatalf("a validated rule did not compile: %+v vs %+v", s.Network, n)
		}
	})
}

// FuzzHostPattern checks that a parsed pattern round-trips through its
// normalised text, and that a subdomain pattern never matches its apex or a
// name that merely ends with the same letters.
func FuzzHostPattern(f *testing.F) {
	for _, s := range []string{"example.com", "*.example.com", "*.bücher.example:443", "*", "*.", "a*.b", "10.0.0.0/8", "[::1]:80", "EXAMPLE.com.", "xn--bcher-kva.example"} {
		f.Add(s, "a.example.com")
	}
	f.Fuzz(func(t *testing.T, pattern, host string) {
		p, err := ParseDenyPattern(pattern)
		if err != nil {
			return
		}
		q, err := ParseDenyPattern(p.Text)
		if err != nil || q.Text != p.Text {
			t.Fatalf("pattern %q -> %q does not round-trip: %q %v", pattern, p.Text, q.Text, err)
		}
		name, _, err := NormalizeHost(host)
		if err != nil || name == "" {
			return
		}
		if p.Subdomains && p.MatchName(p.Name, p.Port) {
			t.Fatalf("%q matches its apex %q", p.Text, p.Name)
		}
		if p.MatchName(name, p.Port) && p.Name != "" && !p.Any {
			if name != p.Name && !strings.HasSuffix(name, "."+p.Name) {
				t.Fatalf("%q matched %q", p.Text, name)
			}
		}
	})
}

// FuzzNormalizeHost checks that normalising is idempotent and that what it
// returns is either a valid DNS name or an address, never text that could
// break a log line or a header.
func FuzzNormalizeHost(f *testing.F) {
	for _, s := range []string{"Example.COM.", "2130706433", "0x7f.1", "127.1", "[::1]", "bücher.example", "a%2eb.com", "evil.com\r\nx", "::ffff:1.2.3.4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, addr, err := NormalizeHost(s)
		if err != nil {
			return
		}
		if addr.IsValid() {
			if name != "" {
				t.Fatalf("%q gave both a name and an address", s)
			}
			return
		}
		for i := 0; i < len(name); i++ {
			c := name[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
				t.Fatalf("%q normalised to %q, which holds %q", s, name, c)
			}
		}
		again, addr2, err := NormalizeHost(name)
		if err != nil || again != name || addr2.IsValid() {
			t.Fatalf("not idempotent: %q -> %q -> %q %v %v", s, name, again, addr2, err)
		}
	})
}
