package confine

import (
	"strings"
	"testing"

	"lnk.dev/sandbox/spec"
)

func TestSanitizeGitConfig(t *testing.T) {
	in := `[core]
	repositoryformatversion = 0
	filemode = true
	hooksPath = /tmp/h
	fsmonitor = evil
[remote "origin"]
	url = https://example.com/r.git
	fetch = +refs/heads/*:refs/remotes/origin/*
	uploadpack = evil
[alias]
	st = !sh -c evil
[include]
	path = /tmp/x
[branch "main"]
	remote = origin
	merge = refs/heads/main
[core]
	sshCommand = evil \
	  more
`
	out, dropped := sanitizeGitConfig([]byte(in))
	s := string(out)
	for _, bad := range []string{"hooksPath", "fsmonitor", "uploadpack", "alias", "include", "sshCommand", "evil", "more"} {
		if strings.Contains(s, bad) {
			t.Errorf("kept %q:\n%s", bad, s)
		}
	}
	for _, good := range []string{"repositoryformatversion = 0", "url = https://example.com/r.git", "merge = refs/heads/main"} {
		if !strings.Contains(s, good) {
			t.Errorf("lost %q:\n%s", good, s)
		}
	}
	if len(dropped) < 6 {
		t.Errorf("dropped: %v", dropped)
	}
	if again, d := sanitizeGitConfig(out); string(again) != s || len(d) != 0 {
		t.Errorf("not stable: %q %v", again, d)
	}
}

func FuzzSanitizeGitConfig(f *testing.F) {
	f.Add([]byte("[core]\n\tbare = false\n[alias]\n\tx = !y\n"))
	f.Add([]byte("[remote \"o\"]\nurl = a\n[remote \"a\\\"b\"]\nurl=x"))
	f.Add([]byte("[core]\nhooksPath=\\\n/tmp"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _ := sanitizeGitConfig(in)
		again, dropped := sanitizeGitConfig(out)
		if string(again) != string(out) || len(dropped) != 0 {
			t.Fatalf("not stable:\n%q\n%q %v", out, again, dropped)
		}
		section := ""
		for _, line := range strings.Split(string(out), "\n") {
			if line == "" {
				continue
			}
			if line[0] == '[' {
				section = parseSection(line)
				if section == "" {
					t.Fatalf("kept a section it does not know: %q", line)
				}
				continue
			}
			key, _, ok := parseKey(strings.TrimSpace(line))
			if !ok || !safeGitKeys[section][key] {
				t.Fatalf("kept %q in %q", line, section)
			}
		}
	})
}

func TestConnectAuthority(t *testing.T) {
	for _, c := range []struct{ host, port, want string }{
		{"github.com", "22", "github.com:22"},
		{"::1", "22", "[::1]:22"},
		{"[::1]", "22", "[::1]:22"},
		{"a b", "22", ""},
		{"evil\r\nX: y", "22", ""},
		{"host", "0", ""},
		{"host", "65536", ""},
		{"host", "022", ""},
		{"", "22", ""},
	} {
		got, err := ConnectAuthority(c.host, c.port)
		if (err == nil) != (c.want != "") || got != c.want {
			t.Errorf("%q %q: %q %v, want %q", c.host, c.port, got, err, c.want)
		}
	}
}

func FuzzConnectAuthority(f *testing.F) {
	f.Add("example.com", "443")
	f.Add("[fe80::1%eth0]", "22")
	f.Add("a\r\nb", "1")
	f.Fuzz(func(t *testing.T, host, port string) {
		a, err := ConnectAuthority(host, port)
		if err != nil {
			return
		}
		if strings.ContainsAny(a, " \r\n\t/@") {
			t.Fatalf("authority %q carries a character that could split the request", a)
		}
	})
}

func TestEnvironDropsOwnedVariables(t *testing.T) {
	r := &Request{SandboxID: "id", Secret: "pw", ProxyPort: 9,
		Env: []string{"PATH=/bin", "http_proxy=http://evil", "SSH_AUTH_SOCK=/s", "GIT_CONFIG_KEY_3=x", "KEEP=1"}}
	env := strings.Join(r.Environ(), "\n")
	for _, bad := range []string{"evil", "SSH_AUTH_SOCK", "GIT_CONFIG_KEY_3"} {
		if strings.Contains(env, bad) {
			t.Errorf("kept %s:\n%s", bad, env)
		}
	}
	for _, good := range []string{"PATH=/bin", "KEEP=1", "http_proxy=http://id:pw@127.0.0.1:9", "TMPDIR=/tmp"} {
		if !strings.Contains(env, good) {
			t.Errorf("missing %s:\n%s", good, env)
		}
	}
}

func TestRequestCheck(t *testing.T) {
	p := &spec.Policy{Folder: "/w"}
	ok := Request{Policy: p, Argv: []string{"true"}, SandboxID: "a", Secret: "b", LnkPath: "/l", ProxySocket: "/s", ProxyPort: 1}
	if err := ok.check(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Request){
		"no policy": func(r *Request) { r.Policy = nil },
		"no argv":   func(r *Request) { r.Argv = nil },
		"bad id":    func(r *Request) { r.SandboxID = "a:b" },
		"no secret": func(r *Request) { r.Secret = "" },
		"bad port":  func(r *Request) { r.ProxyPort = 70000 },
		"no socket": func(r *Request) { r.ProxySocket = "" },
	} {
		r := ok
		mut(&r)
		if err := r.check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestMountOrder checks the rule the wall rests on: no mount comes before
// a mount on one of its path's ancestors.
func TestMountOrder(t *testing.T) {
	ms := []mount{
		{"/a/b/c", kProtect, nil}, {"/a", kHide, nil}, {"/a/b", kWrite, nil}, {"/", kBase, nil},
		{"/a/b", kDeny, nil}, {"/z", kLink, nil}, {"/a/b/c/d", kRead, nil},
	}
	sortMounts(ms)
	for i := range ms {
		for j := i + 1; j < len(ms); j++ {
			if within(ms[i].path, ms[j].path) && ms[i].path != ms[j].path {
				t.Fatalf("%s comes before its ancestor %s", ms[i].path, ms[j].path)
			}
			if ms[i].path == ms[j].path && ms[i].kind > ms[j].kind {
				t.Fatalf("kinds out of order at %s", ms[i].path)
			}
		}
	}
}

// TestNoPlaceholderInsidePlaceholder covers a home that is the sandbox's
// folder with no ~/.config: the folder placeholder for .config already
// keeps out every hidden path under it, and the guard (running as an
// ordinary user) could not create one inside its 0555 folder anyway.
func TestNoPlaceholderInsidePlaceholder(t *testing.T) {
	home := t.TempDir()
	p := &spec.Policy{
		Home:     home,
		Folder:   home,
		Writable: []spec.Path{{Path: home, Dir: true, Exists: true}},
		Hidden: []spec.Path{
			{Path: home + "/.config/gcloud", From: "home secrets"},
			{Path: home + "/.aws", From: "home secrets"},
		},
	}
	plan, err := planProtect(p)
	if err != nil {
		t.Fatal(err)
	}
	var sawConfig, sawAWS bool
	for _, c := range plan.create {
		switch {
		case c.path == home+"/.config":
			sawConfig = c.dir
		case c.path == home+"/.aws":
			sawAWS = true
		case strings.HasPrefix(c.path, home+"/.config/"):
			t.Errorf("placeholder %s inside the .config placeholder", c.path)
		}
	}
	if !sawConfig || !sawAWS {
		t.Errorf("want folder placeholders for .config and .aws, got %+v", plan.create)
	}
}
