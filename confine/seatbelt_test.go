package confine

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"lnk.dev/sandbox/spec"
)

// fixtureSpecs are spec's good fixtures and the default spec: every
// generator is golden-tested against each.
func fixtureSpecs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../spec/testdata/good/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in ../spec/testdata/good: %v", err)
	}
	return append(files, "default")
}

// fixturePolicy resolves a fixture against the golden tree.
func fixturePolicy(t *testing.T, file string) (p *spec.Policy, root string) {
	t.Helper()
	root, home, folder := goldenTree(t)
	s := spec.Default()
	if file != "default" {
		var err error
		if s, err = spec.Load(file); err != nil {
			t.Fatal(err)
		}
	}
	env := spec.Env{Home: home, Folder: folder, Path: "/usr/bin:/bin",
		Link: spec.DefaultLinkDirs(home, "", "", "", filepath.Join(root, "run"))}
	p, err := spec.Resolve(s, strings.TrimPrefix(file, "../"), env)
	if err != nil {
		t.Fatal(err)
	}
	return p, root
}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, golden, got, rerun string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v: run go test -run %s -update", err, rerun)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -run %s -update rewrites it):\n%s", golden, rerun, diffLines(string(want), got))
	}
}

func TestGoldenSeatbelt(t *testing.T) {
	for _, file := range fixtureSpecs(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".toml")
		t.Run(name, func(t *testing.T) {
			p, root := fixturePolicy(t, file)
			o := SeatbeltOptions{ProxyPort: 3128, LnkPath: "/usr/local/bin/lnk", TempDir: filepath.Join(root, "tmp/lnk-sbx1"),
				ProxySocket: filepath.Join(root, "run/lnk/sb/sbx1/proxy.sock")}
			prof, err := SeatbeltProfile(p, o)
			if err != nil {
				t.Fatal(err)
			}
			rules := mustRead(t, prof)
			checkSeatbeltAlgebra(t, p, o, rules)
			checkSeatbeltNetwork(t, p, rules, o)
			got := strings.ReplaceAll(prof, root, "$ROOT")
			checkGolden(t, filepath.Join("testdata", "seatbelt", name+".sb"), got, "TestGoldenSeatbelt")
		})
	}
}

func mustRead(t *testing.T, prof string) []sbRuleT {
	t.Helper()
	forms, err := readSBPL(prof)
	if err != nil {
		t.Fatalf("the profile does not read: %v\n%s", err, prof)
	}
	rules, err := profileRules(forms)
	if err != nil {
		t.Fatalf("the profile's rules are malformed: %v\n%s", err, prof)
	}
	if len(rules) == 0 || rules[0].allow || rules[0].ops[0] != "default" {
		t.Fatalf("the first rule must be (deny default)")
	}
	return rules
}

// checkSeatbeltAlgebra evaluates the profile on probe paths and holds it
// to the spec's own algebra (spec.Policy.CanRead/CanWrite): the profile
// may only ever be stricter, and only where it says why (pinned folders
// of protected names, protected names under glob-writable roots).
func checkSeatbeltAlgebra(t *testing.T, p *spec.Policy, o SeatbeltOptions, rules []sbRuleT) {
	t.Helper()
	for _, probe := range probePaths(p) {
		read, write := decide(rules, "file-read-data", probe), decide(rules, "file-write-create", probe)
		if within(probe, o.TempDir) {
			if !read || !write {
				t.Errorf("%s: the private temp folder must be readable and writable", probe)
			}
			continue
		}
		if want := p.CanRead(probe); read != want {
			t.Errorf("%s: profile read=%v, spec CanRead=%v", probe, read, want)
		}
		want := p.CanWrite(probe)
		switch {
		case write == want:
		case write && !want:
			t.Errorf("%s: profile lets the sandbox write what the spec does not", probe)
		case strings.HasSuffix(probe, "/.git") || strings.HasSuffix(probe, "/.claude") || strings.HasSuffix(probe, "/.config"):
			// a pinned folder: not renamed or removed
		case protectedIn(probe):
			// a protected name under a glob-writable root
		default:
			t.Errorf("%s: profile refuses a write the spec allows", probe)
		}
	}
	for _, l := range p.Link {
		for _, x := range []string{l, l + "/control.sock", l + "/x/y"} {
			if decide(rules, "file-read-data", x) || decide(rules, "file-write-create", x) {
				t.Errorf("%s: lnk's own dir must be neither readable nor writable", x)
			}
		}
	}
}

// protectedIn reports whether a protected name is a component run of p.
func protectedIn(p string) bool {
	return spec.IsProtected("/", p)
}

// probePaths are the policy's paths, paths inside and beside them,
// protected names (in odd cases too) and a few system paths.
func probePaths(p *spec.Policy) []string {
	var out []string
	add := func(x string) { out = append(out, x) }
	var all []spec.Path
	for _, l := range [][]spec.Path{p.Hidden, p.ReadAllow, p.Writable, p.WriteDenied, p.Exec} {
		all = append(all, l...)
	}
	for _, x := range all {
		base := x.Path
		if x.Glob {
			base = strings.Split(base, "*")[0]
			base = strings.TrimSuffix(base, "/")
			add(base + "/a.pem")
			add(base + "/sub/a.pem")
			add(base + "/sub/deep/a.pem/x")
			add(base + "/build/x")
			add(base + "/.env")
			add(base + "/sub/.env")
		}
		add(base)
		add(base + "/f")
		add(base + "/d/f")
		add(base + "x")
		add(filepath.Dir(base))
	}
	for _, w := range p.Writable {
		if w.Glob {
			continue
		}
		for _, n := range spec.ProtectedNames {
			add(filepath.Join(w.Path, n))
			add(filepath.Join(w.Path, "sub", n, "x"))
		}
		add(filepath.Join(w.Path, ".git/objects/ab"))
		add(filepath.Join(w.Path, "sub/.git"))
	}
	add("/etc/passwd")
	add("/usr/bin/env")
	add("/")
	return out
}

// checkSeatbeltNetwork: in proxy mode only the proxy's port is reachable.
func checkSeatbeltNetwork(t *testing.T, p *spec.Policy, rules []sbRuleT, o SeatbeltOptions) {
	t.Helper()
	var outbound []string
	for _, r := range rules {
		for _, op := range r.ops {
			if strings.HasPrefix(op, "network") && r.allow {
				for _, f := range r.filt {
					outbound = append(outbound, op+" "+f.String())
				}
				if len(r.filt) == 0 {
					outbound = append(outbound, op+" (everything)")
				}
			}
		}
	}
	got := strings.Join(outbound, "\n")
	if p.Network.Mode == spec.ModeHost {
		if got != "network* (everything)" {
			t.Errorf("host mode: network rules are %q", got)
		}
		return
	}
	want := "network-outbound (remote tcp \"localhost:3128\")\nnetwork-outbound (remote unix-socket (path-literal \"" + o.ProxySocket +
		"\"))\nnetwork-bind (local tcp \"localhost:*\")\nnetwork-inbound (local tcp \"localhost:*\")"
	if got != want {
		t.Errorf("proxy mode: network rules are\n%s\nwant\n%s", got, want)
	}
}

func TestSeatbeltRefuses(t *testing.T) {
	p, _ := fixturePolicy(t, "default")
	if _, err := SeatbeltProfile(p, SeatbeltOptions{}); err == nil || !strings.Contains(err.Error(), "proxy port") {
		t.Errorf("no proxy port: %v", err)
	}
	bad := *p
	bad.Writable = append([]spec.Path(nil), p.Writable...)
	bad.Writable = append(bad.Writable, spec.Path{Path: p.Folder + "/a\"b/*", Glob: true, From: "filesystem.allow_write[9]"})
	if _, err := SeatbeltProfile(&bad, SeatbeltOptions{ProxyPort: 1}); err == nil || !strings.Contains(err.Error(), "grant more") {
		t.Errorf("a glob with a quote in a grant: %v", err)
	}
	bad.Writable = append(bad.Writable[:len(bad.Writable)-1], spec.Path{Path: p.Folder + "/a\nb", Exists: true, From: "filesystem.allow_write[9]"})
	if _, err := SeatbeltProfile(&bad, SeatbeltOptions{ProxyPort: 1}); err == nil || !strings.Contains(err.Error(), "control character") {
		t.Errorf("a path with a newline: %v", err)
	}
	// A denial with a quote is kept, a little wider.
	deny := *p
	deny.Hidden = append([]spec.Path(nil), p.Hidden...)
	deny.Hidden = append(deny.Hidden, spec.Path{Path: p.Folder + "/**/x\"(y", Glob: true, From: "filesystem.deny_read[9]"})
	prof, err := SeatbeltProfile(&deny, SeatbeltOptions{ProxyPort: 1})
	if err != nil {
		t.Fatal(err)
	}
	rules := mustRead(t, prof)
	for _, x := range []string{p.Folder + "/x\"(y", p.Folder + "/a/b/x\"(y/z", p.Folder + "/x_(y"} {
		if decide(rules, "file-read-data", x) {
			t.Errorf("%s should be hidden", x)
		}
	}
}

// TestGlobRegexAnchors: a relative glob is anchored at the folder it was
// written against, never at the working folder or anywhere in the tree.
func TestGlobRegexAnchors(t *testing.T) {
	cases := []struct {
		glob    string
		match   []string
		nomatch []string
	}{
		{"/h/work/**/*.pem", []string{"/h/work/a.pem", "/h/work/x/y/a.pem", "/h/work/a.pem/inner"},
			[]string{"/other/work/a.pem", "/h/a.pem", "/h/workx/a.pem", "/x/h/work/a.pem", "/h/work/a.pemx"}},
		{"/h/work/build/**", []string{"/h/work/build", "/h/work/build/x/y"}, []string{"/h/work/buildx", "/h/work/other/build/x"}},
		{"/h/.config/*/token", []string{"/h/.config/gh/token", "/h/.config/gh/token/x"}, []string{"/h/.config/token", "/h/.config/a/b/token", "/h/.configx/a/token"}},
		{"/h/[a-c]?.txt", []string{"/h/ab.txt", "/h/cz.txt"}, []string{"/h/db.txt", "/h/a/b.txt", "/h/abc.txt"}},
		{"/h/[^a-c]x", []string{"/h/dx"}, []string{"/h/ax", "/h//x"}},
		{"/h/a.b+c(d)", []string{"/h/a.b+c(d)"}, []string{"/h/aXb+c(d)", "/h/a.bbc(d)"}},
		{"/**/x", []string{"/x", "/a/x", "/a/b/x"}, []string{"/ax", "/a/xb"}},
	}
	for _, c := range cases {
		re, broad, err := globRegex(c.glob)
		if err != nil || broad {
			t.Fatalf("%s: %v broad=%v", c.glob, err, broad)
		}
		rx := regexp.MustCompilePOSIX(re)
		for _, m := range c.match {
			if !rx.MatchString(m) {
				t.Errorf("%s (%s) should match %s", c.glob, re, m)
			}
		}
		for _, m := range c.nomatch {
			if rx.MatchString(m) {
				t.Errorf("%s (%s) should not match %s", c.glob, re, m)
			}
		}
	}
}

// FuzzSBPLQuote: no path can change a profile's meaning. A path that is
// quoted reads back exactly; a path as a subpath rule in a whole profile
// leaves the profile's shape as it was; its regex matches itself and its
// subtree and, unless it had to be widened, nothing beside it.
func FuzzSBPLQuote(f *testing.F) {
	for _, s := range []string{"/a/b", `/a"b`, `/a\b`, `/a(b)`, "/a;b", `/a\"))(allow default)`, "/é/ü", "/a\nb", "/#\"x\"", "/a b/c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		q, err := sbplString(p)
		if err != nil {
			if utf8.ValidString(p) && !strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("%q refused: %v", p, err)
			}
			return
		}
		prof := "(version 1)\n(deny default)\n(allow file-read* (subpath " + q + "))\n(deny file-write* (literal \"/x\"))\n"
		forms, err := readSBPL(prof)
		if err != nil {
			t.Fatalf("%q: %v\n%s", p, err, prof)
		}
		if len(forms) != 4 {
			t.Fatalf("%q: %d forms, want 4:\n%s", p, len(forms), prof)
		}
		r := forms[2]
		if len(r.list) != 3 || len(r.list[2].list) != 2 || !r.list[2].list[1].isStr || r.list[2].list[1].atom != p {
			t.Fatalf("%q read back as %s", p, r)
		}
		if !strings.HasPrefix(p, "/") {
			return
		}
		clean := path.Clean(p)
		re, broad := regexLiteral(clean)
		full := "^" + re + "(/.*)?$"
		if _, err := readSBPL(`(deny file-read* (regex #"` + full + `"))`); err != nil {
			t.Fatalf("%q: regex form does not read: %v", p, err)
		}
		if err := checkFilter(sexp{isLst: true, list: []sexp{{atom: "regex"}, {isRe: true, atom: full}}}); err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		rx := regexp.MustCompilePOSIX(full)
		if !rx.MatchString(clean) || !rx.MatchString(clean+"/x") {
			t.Fatalf("%q: %s does not match the path or its subtree", p, full)
		}
		if !broad && clean != "/" && rx.MatchString(clean+"x") {
			t.Fatalf("%q: %s matches beside the path", p, full)
		}
	})
}

// FuzzGlobRegex: a glob component converts to a regex that matches what
// path.Match matches, and, where it is exact, nothing else.
func FuzzGlobRegex(f *testing.F) {
	for _, s := range [][2]string{{"*.pem", "a.pem"}, {"[a-c]?", "bz"}, {"[^x]*", "yy"}, {`\*`, "*"}, {"a[", "a["}, {`[\]]`, "]"}, {"é*", "éa"}, {`"*`, `"x`}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		if strings.Contains(pat, "/") || strings.Contains(name, "/") || name == "" || pat == "**" {
			return
		}
		// Go's POSIX mode keeps a newline out of negated classes such as
		// [^/]; Seatbelt's regexes (POSIX ERE without REG_NEWLINE) let it
		// in, as path.Match does. The reader here cannot judge such names.
		if strings.Contains(name, "\n") {
			return
		}
		if _, err := path.Match(pat, name); err != nil {
			return
		}
		re, broad, err := globRegex("/r/" + pat)
		if err != nil {
			return // a control character or invalid UTF-8: refused
		}
		rx, err := regexp.CompilePOSIX(re)
		if err != nil {
			t.Fatalf("%q: %s does not compile: %v", pat, re, err)
		}
		if strings.Contains(re, `"`) {
			t.Fatalf("%q: %s holds a quote", pat, re)
		}
		want, _ := path.Match(pat, name)
		got := rx.MatchString("/r/" + name)
		if want && !got {
			t.Fatalf("%q should match %q: %s", pat, name, re)
		}
		if got && !want && !broad && utf8.ValidString(name) {
			t.Fatalf("%q should not match %q: %s", pat, name, re)
		}
	})
}

// FuzzSeatbeltProfile: whatever a hidden, re-allowed or writable path
// holds, the whole profile reads, has the same number of rules, and
// means what the spec's algebra says on paths in and around it.
func FuzzSeatbeltProfile(f *testing.F) {
	for _, s := range []string{"/w/secret", `/w/a"b`, `/w/a\b`, "/w/a)(allow file-write* (subpath \"/\"))", "/", "/w", "/l/x", "/w/é ü", "/x/;c"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	base := func() *spec.Policy {
		return &spec.Policy{Source: "fuzz", Home: "/h", Folder: "/w",
			Writable: []spec.Path{{Path: "/w", Dir: true, Exists: true, From: "w"}},
			Hidden:   []spec.Path{{Path: "/h/.ssh", Dir: true, Exists: true, From: "home secrets"}},
			Link:     []string{"/l"}, Network: spec.NetworkPolicy{Mode: spec.ModeProxy}}
	}
	o := SeatbeltOptions{ProxyPort: 1, LnkPath: "/bin/lnk"}
	plain, err := SeatbeltProfile(base(), o)
	if err != nil {
		f.Fatal(err)
	}
	forms, _ := readSBPL(plain)
	f.Fuzz(func(t *testing.T, p string, kind uint8) {
		if !strings.HasPrefix(p, "/") || path.Clean(p) != p {
			return
		}
		pol := base()
		x := spec.Path{Path: p, Exists: true, From: "fuzz"}
		switch kind % 3 {
		case 0:
			pol.Hidden = append(pol.Hidden, x)
		case 1:
			pol.Hidden = append(pol.Hidden, spec.Path{Path: "/w/h", Exists: true, From: "h"})
			pol.ReadAllow = append(pol.ReadAllow, x)
		case 2:
			pol.WriteDenied = append(pol.WriteDenied, x)
		}
		prof, err := SeatbeltProfile(pol, o)
		if err != nil {
			if sbplCheck(p) == nil {
				t.Fatalf("%q refused: %v", p, err)
			}
			return
		}
		got, err := readSBPL(prof)
		if err != nil {
			t.Fatalf("%q: %v\n%s", p, err, prof)
		}
		extra := 1 // one more rule for the path
		if kind%3 == 1 {
			extra = 3 // the hidden /w/h, the re-allowed read, its write inside /w (+ stat of folders between, when any)
		}
		if len(got) < len(forms)+extra-1 || len(got) > len(forms)+extra+1 {
			t.Fatalf("%q: %d forms, the plain profile has %d:\n%s", p, len(got), len(forms), prof)
		}
		rules, err := profileRules(got)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		for _, probe := range []string{p, p + "/x", "/w/ok", "/w/h/y", "/l/x", "/etc/passwd", "/h/.ssh/id"} {
			probe = path.Clean(probe)
			if r := decide(rules, "file-read-data", probe); r != pol.CanRead(probe) {
				t.Fatalf("%q: read %s = %v, spec says %v\n%s", p, probe, r, pol.CanRead(probe), prof)
			}
			if w := decide(rules, "file-write-create", probe); w && !pol.CanWrite(probe) {
				t.Fatalf("%q: write %s allowed, spec refuses\n%s", p, probe, prof)
			}
		}
	})
}
