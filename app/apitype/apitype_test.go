package apitype

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"lnk.dev/sandbox/spec"
)

// The policy travels from the CLI to the daemon as JSON: it must decide
// exactly as it did before.
func TestPolicyRoundTrip(t *testing.T) {
	home := t.TempDir()
	s, err := spec.Parse("t.toml", []byte(`
[network]
hosts = ["example.com", "*.example.org:443"]
deny = ["bad.example.com", "10.0.0.0/8"]
endpoints = ["open"]
[network.lan]
allow = ["127.0.0.1", "192.168.0.0/16:5432"]
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.Resolve(s, "t.toml", spec.Env{Home: home, Folder: home, Link: spec.DefaultLinkDirs(home, "", "", "", "")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&WrapRequest{Policy: p, Argv: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	var got WrapRequest
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Policy, p) {
		t.Errorf("policy changed on the wire:\n got %+v\nwant %+v", got.Policy, p)
	}
	n := &got.Policy.Network
	for _, c := range []struct {
		name string
		port uint16
		want bool
	}{{"example.com", 80, true}, {"a.example.org", 443, true}, {"a.example.org", 80, false}, {"bad.example.com", 443, false}, {"other.com", 443, false}} {
		if d := n.CheckName(c.name, c.port); d.Allow != c.want {
			t.Errorf("CheckName(%s, %d) = %+v", c.name, c.port, d)
		}
	}
	for _, c := range []struct {
		addr string
		port uint16
		want bool
	}{{"127.0.0.1", 80, true}, {"192.168.1.1", 5432, true}, {"192.168.1.1", 80, false}, {"10.1.1.1", 443, false}} {
		if d := n.CheckAddr(netip.MustParseAddr(c.addr), c.port, true); d.Allow != c.want {
			t.Errorf("CheckAddr(%s, %d) = %+v", c.addr, c.port, d)
		}
	}
}

func TestErrorIs(t *testing.T) {
	err := fmt.Errorf("x: %w", Errorf(CodeNotFound, "no sandbox"))
	if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) {
		t.Error("errors.Is does not match by code")
	}
	if CodeOf(err) != CodeNotFound || CodeOf(errors.New("x")) != CodeInternal {
		t.Error("CodeOf")
	}
}

func TestPaths(t *testing.T) {
	home := "/home/u"
	p := PathsFor(spec.DefaultLinkDirs(home, "", "", "", "/run/user/1"))
	if p.Runtime != "/run/user/1/lnk" || p.State != filepath.Join(home, ".local/state/lnk") {
		t.Errorf("paths %+v", p)
	}
	p = PathsFor(spec.DefaultLinkDirs(home, "", "", "", ""))
	if p.Runtime != filepath.Join(home, ".cache/lnk/run") {
		t.Errorf("runtime without XDG_RUNTIME_DIR: %s", p.Runtime)
	}
	// Every path lies in lnk's dirs, which every sandbox has hidden.
	d := spec.DefaultLinkDirs(home, "", "", "", "")
	for _, x := range []string{p.Runtime, p.State, p.LogDir(), p.DaemonLog(), p.SandboxDir("abc")} {
		ok := false
		for _, l := range d.List() {
			if rel, err := filepath.Rel(l, x); err == nil && rel != ".." && (len(rel) < 3 || rel[:3] != "../") {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s is not inside lnk's dirs", x)
		}
	}
	os.Setenv("HOME", home)
	if _, err := DefaultPaths(); err != nil {
		t.Error(err)
	}
}
