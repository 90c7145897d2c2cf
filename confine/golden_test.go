package confine

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lnk.dev/sandbox/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenTree makes the machine the fixture specs resolve against: a home
// with secrets and a folder with protected names, some present.
func goldenTree(t *testing.T) (root, home, folder string) {
	t.Helper()
	// Not under /tmp, which the wall replaces (and so leaves out of the argv).
	root, err := os.MkdirTemp("/var/tmp", "lnk-golden-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home = filepath.Join(root, "home")
	folder = filepath.Join(home, "work")
	for _, f := range []string{
		"home/.ssh/id_ed25519", "home/.ssh/known_hosts", "home/.bashrc", "home/.aws/credentials",
		"home/.config/lnk/settings.toml", "home/Documents/shared/a", "home/Documents/b",
		"home/bin/tool", "home/cache/x",
		"home/work/.git/config", "home/work/.git/HEAD", "home/work/.vscode/settings.json",
		"home/work/locked.txt", "home/work/secret.txt", "home/work/private/public.txt",
		"home/work/private/key", "home/work/sub/.envrc", "home/work/sub/repo/.git/HEAD",
		"home/work/a.pem", "home/work/out1/keep", "home/work/out2/y",
	} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, home, folder
}

func TestGoldenArgv(t *testing.T) {
	specs, _ := filepath.Glob("testdata/specs/*.toml")
	specs = append(specs, "default")
	for _, file := range specs {
		name := strings.TrimSuffix(filepath.Base(file), ".toml")
		for _, keep := range []bool{false, true} {
			if keep && name != "default" {
				continue
			}
			gname := name
			if keep {
				gname += "-keep-session"
			}
			t.Run(gname, func(t *testing.T) {
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
				p, err := spec.Resolve(s, file, env)
				if err != nil {
					t.Fatal(err)
				}
				r := &Request{Policy: p, Argv: []string{"/bin/sh", "-c", "echo hi"}, SandboxID: "sbx1",
					Secret: "secret", LnkPath: "/usr/lib/lnk/lnk", ProxySocket: filepath.Join(root, "run/lnk/sbx1.sock"),
					ProxyPort: 3128, KeepSession: keep}
				argv, err := commandArgv(r)
				if err != nil {
					t.Fatal(err)
				}
				got := strings.ReplaceAll(strings.Join(argv, "\n"), root, "$ROOT") + "\n"
				golden := filepath.Join("testdata", "golden", gname+".golden")
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
					t.Fatalf("%v: run go test -run TestGoldenArgv -update", err)
				}
				if got != string(want) {
					t.Errorf("argv differs from %s (go test -run TestGoldenArgv -update rewrites it):\n%s", golden, diffLines(string(want), got))
				}
			})
		}
	}
}

func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, "line "+itoa(i+1)+": want "+x+" | got "+y)
		}
		if len(out) > 20 {
			break
		}
	}
	return strings.Join(out, "\n")
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + func() string { return fmtInt(i) }())
}

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}
