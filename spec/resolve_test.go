package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// machine builds a temp tree: a home with secrets, a folder, and links.
type machine struct {
	root, home, folder string
	env                Env
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &machine{root: root, home: filepath.Join(root, "home"), folder: filepath.Join(root, "home", "work")}
	for _, d := range []string{m.folder, filepath.Join(m.home, ".ssh"), filepath.Join(m.home, "docs", "public"),
		filepath.Join(m.home, "other"), filepath.Join(root, "outside"), filepath.Join(m.home, "bin")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.WriteFile(filepath.Join(m.home, ".ssh", "id_ed25519"), []byte("key"), 0o600))
	must(t, os.WriteFile(filepath.Join(m.home, "bin", "tool"), []byte("#!/bin/sh\n"), 0o755))
	m.env = Env{Home: m.home, Folder: m.folder, Path: filepath.Join(m.home, "bin"),
		Link: DefaultLinkDirs(m.home, "", "", "", filepath.Join(root, "run"))}
	return m
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func resolveText(t *testing.T, m *machine, text string) (*Policy, error) {
	t.Helper()
	s, err := Parse("t.toml", []byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return Resolve(s, "t.toml", m.env)
}

func TestResolveSymlinks(t *testing.T) {
	m := newMachine(t)
	must(t, os.Symlink(filepath.Join(m.root, "outside"), filepath.Join(m.folder, "escape")))
	must(t, os.Symlink("docs", filepath.Join(m.home, "docs-link")))
	must(t, os.Symlink(filepath.Join(m.home, "other"), filepath.Join(m.home, "docs", "up")))
	must(t, os.MkdirAll(filepath.Join(m.home, "docs", "inner"), 0o755))
	must(t, os.Symlink("inner", filepath.Join(m.home, "docs", "inner-link")))
	cases := []struct {
		name, spec, errHas string
	}{
		{"grant is a link", `filesystem.allow_write = ["escape"]`, "is a symlink to"},
		{"grant through outward link", `filesystem.allow_write = ["escape/sub"]`, "leads out of"},
		{"grant through link to a sibling", `filesystem.allow_read = ["~/docs/up/x"]`, "leads out of"},
		{"grant through inward link", `filesystem.allow_write = ["~/docs/inner-link/x"]`, ""},
		{"final link in read grant", `filesystem.allow_read = ["~/docs-link"]`, "is a symlink to"},
		{"lnk's dirs are never writable", `filesystem.allow_write = ["~/.config/lnk"]`, "lnk's own"},
	}
	must(t, os.MkdirAll(filepath.Join(m.home, ".config", "lnk"), 0o700))
	must(t, os.MkdirAll(filepath.Join(m.home, "docs", "inner", "x"), 0o755))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := resolveText(t, m, c.spec)
			if c.errHas == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Fatalf("got %v, want an error with %q", err, c.errHas)
			}
			if es := Errors(err); len(es) == 0 || es[0].Line == 0 || es[0].Key == "" {
				t.Errorf("error does not name line and key: %#v", es)
			}
		})
	}
}

func TestResolveFolder(t *testing.T) {
	m := newMachine(t)
	link := filepath.Join(m.home, "work-link")
	must(t, os.Symlink(m.folder, link))
	env := m.env
	env.Folder = link
	if _, err := Resolve(Default(), "default", env); err == nil || !strings.Contains(err.Error(), "is a symlink") {
		t.Errorf("folder that is a symlink: %v", err)
	}
	env.Folder = filepath.Join(m.home, "missing")
	if _, err := Resolve(Default(), "default", env); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing folder: %v", err)
	}
	env.Folder = "relative"
	if _, err := Resolve(Default(), "default", env); err == nil {
		t.Error("relative folder accepted")
	}
}

func TestResolveGrants(t *testing.T) {
	m := newMachine(t)
	must(t, os.Symlink(filepath.Join(m.home, "other"), filepath.Join(m.home, "ssh-alias")))
	p, err := resolveText(t, m, `
[filesystem]
deny_read = ["~/docs", "~/ssh-alias"]
allow_read = ["~/docs/public"]
allow_write = [".", "~/missing-cache"]
deny_write = ["secrets"]
[commands]
allow = ["tool", "not-a-program", "~/bin"]
`)
	if err != nil {
		t.Fatal(err)
	}
	j := func(parts ...string) string { return filepath.Join(append([]string{m.home}, parts...)...) }
	reads := map[string]bool{
		j("docs", "secret.txt"):           false,
		j("docs", "public", "a.txt"):      true,
		j(".ssh", "id_ed25519"):           false,
		j("other", "x"):                   false, // hidden through the link's target
		j("work", "main.go"):              true,
		j(".config", "lnk", "tools.toml"): false,
		"/etc/hostname":                   true,
	}
	for path, want := range reads {
		if got := p.CanRead(path); got != want {
			t.Errorf("CanRead(%s) = %v, want %v", path, got, want)
		}
	}
	writes := map[string]bool{
		j("work", "main.go"):                            true,
		j("work", "sub", "new.txt"):                     true,
		j("work", "secrets", "x"):                       false,
		j("work", ".bashrc"):                            false,
		j("work", "sub", ".git", "hooks", "pre-commit"): false,
		j("work", ".git", "config"):                     false,
		j("work", ".git", "objects", "ab"):              true,
		j("work", ".vscode", "tasks.json"):              false,
		j("docs", "x"):                                  false,
		j(".ssh", "authorized_keys"):                    false,
		"/etc/passwd":                                   false,
	}
	for path, want := range writes {
		if got := p.CanWrite(path); got != want {
			t.Errorf("CanWrite(%s) = %v, want %v", path, got, want)
		}
	}
	notes := strings.Join(p.Notes, "\n")
	for _, want := range []string{"missing-cache does not exist", `"not-a-program" is not on PATH`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	if len(p.Exec) != 2 || p.Exec[0].Path != j("bin", "tool") {
		t.Errorf("Exec = %+v, want the tool and ~/bin", p.Exec)
	}
}

func TestHiddenMissingInsideWritable(t *testing.T) {
	m := newMachine(t)
	m.env.Folder = m.home // the whole home is the folder
	p, err := resolveText(t, m, `filesystem.allow_write = ["."]`)
	if err != nil {
		t.Fatal(err)
	}
	var aws bool
	for _, h := range p.Hidden {
		if h.Path == filepath.Join(m.home, ".aws") {
			aws = !h.Exists
		}
	}
	if !aws {
		t.Errorf("~/.aws is missing inside a writable home but not kept hidden: %+v", p.Hidden)
	}
	if p.CanWrite(filepath.Join(m.home, ".aws", "credentials")) {
		t.Error("a sandbox may create ~/.aws/credentials in a writable home")
	}
}

func TestGlobs(t *testing.T) {
	m := newMachine(t)
	for _, f := range []string{"a.pem", "sub/b.pem", "sub/deep/c.pem", "sub/d.txt"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(m.folder, f)), 0o755))
		must(t, os.WriteFile(filepath.Join(m.folder, f), nil, 0o644))
	}
	p, err := resolveText(t, m, `filesystem.deny_read = ["**/*.pem"]`)
	if err != nil {
		t.Fatal(err)
	}
	var glob Path
	for _, h := range p.Hidden {
		if h.Glob {
			glob = h
		}
	}
	got, err := glob.Expand()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.pem", "sub/b.pem", "sub/deep/c.pem"}
	if len(got) != len(want) {
		t.Fatalf("Expand = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != filepath.Join(m.folder, want[i]) {
			t.Errorf("Expand[%d] = %s, want %s", i, got[i], want[i])
		}
	}
	if p.CanRead(filepath.Join(m.folder, "sub", "new.pem")) {
		t.Error("a new .pem file matches the glob but is readable")
	}
	if !p.CanRead(filepath.Join(m.folder, "sub", "d.txt")) {
		t.Error("d.txt is hidden but does not match")
	}
}

// TestMissingSecretsOutsideWritable: with nothing writable, a missing home
// secret cannot be created, so it is not listed, and the ones that exist
// are named by where they come from.
func TestMissingSecretsOutsideWritable(t *testing.T) {
	m := newMachine(t)
	p, err := resolveText(t, m, `network.mode = "proxy"`)
	if err != nil {
		t.Fatal(err)
	}
	var ssh bool
	for _, h := range p.Hidden {
		if !h.Exists {
			t.Errorf("missing %s listed as hidden with nothing writable", h.Path)
		}
		if h.From != "home secrets" && h.From != "lnk" {
			t.Errorf("%s comes from %q", h.Path, h.From)
		}
		ssh = ssh || h.Path == filepath.Join(m.home, ".ssh")
	}
	if !ssh {
		t.Errorf("~/.ssh exists but is not hidden: %+v", p.Hidden)
	}
}

// TestEnforcementsTellTheTruth: Windows's account says plainly that reads
// and the network are not confined, and claims neither.
func TestEnforcementsTellTheTruth(t *testing.T) {
	var win *Enforcement
	for i := range Enforcements {
		if Enforcements[i].OS == "windows" {
			win = &Enforcements[i]
		}
	}
	if win == nil {
		t.Fatal("no Windows entry")
	}
	notDone := strings.Join(win.NotDone, "\n")
	for _, want := range []string{"reads are NOT confined", "network is NOT confined", "programs"} {
		if !strings.Contains(notDone, want) {
			t.Errorf("Windows does not say %q", want)
		}
	}
	for _, e := range win.Enforced {
		if strings.HasPrefix(e, "reads") || strings.HasPrefix(e, "network") || strings.HasPrefix(e, "programs") {
			t.Errorf("Windows claims %q", e)
		}
	}
	var b strings.Builder
	p := &Policy{Source: "x", Folder: "/f", Network: NetworkPolicy{Mode: ModeProxy}}
	Describe(&b, p)
	for _, want := range []string{"(on Windows NOT enforced: a program may ignore the proxy", "(on Windows NOT enforced: every file below is readable"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the account lacks %q", want)
		}
	}
}
