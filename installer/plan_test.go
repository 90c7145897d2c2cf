package installer

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// render shows a plan as text, for the golden files.
func render(p *Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "os: %s\nbinary: %s\n", p.OS, p.Binary)
	if p.CopyFrom != "" {
		fmt.Fprintf(&b, "copied from: %s\n", p.CopyFrom)
	}
	fmt.Fprintf(&b, "record: %s\n", p.Record)
	for _, f := range p.Files {
		fmt.Fprintf(&b, "\n== file %s (%04o): %s\n", f.Path, f.Mode, f.What)
		if utf8.Valid(f.Data) && !strings.ContainsRune(string(f.Data), 0) {
			b.Write(f.Data)
		} else {
			fmt.Fprintf(&b, "(%d bytes of binary data)\n", len(f.Data))
		}
	}
	for _, l := range p.Links {
		fmt.Fprintf(&b, "\n== link %s -> %s: %s\n", l.Path, l.Target, l.What)
	}
	for _, v := range p.Run {
		fmt.Fprintf(&b, "\n== HKCU\\%s\\%s = %s: %s\n", RunKey, v.Name, v.Command, v.What)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "\n== note: %s\n", n)
	}
	return b.String()
}

func TestPlanGolden(t *testing.T) {
	icon := []byte("\x89PNG\r\n\x1a\n\x00fake")
	tests := map[string]Options{
		"linux-xdg": {OS: "linux", Home: "/home/jane", StateDir: "/home/jane/.local/state/lnk", Exe: "/home/jane/Downloads/lnk"},
		"linux-systemd-odd-home": {OS: "linux", Home: `/home/j$ "100%"`, ConfigHome: "/cfg", DataHome: "relative/ignored",
			StateDir: "/st/lnk", Exe: "/opt/lnk/lnk", Autostart: AutostartSystemd},
		"linux-in-place-none": {OS: "linux", Home: "/home/jane", StateDir: "/home/jane/.local/state/lnk", Exe: "/usr/bin/lnk",
			InPlace: true, Autostart: AutostartNone},
		"darwin": {OS: "darwin", Home: "/Users/jane & <co>", StateDir: "/Users/jane & <co>/.local/state/lnk", Exe: "/Users/jane & <co>/Downloads/lnk"},
		"windows": {OS: "windows", Home: `C:\Users\Jane Doe`, LocalAppData: `C:\Users\Jane Doe\AppData\Local`,
			StateDir: `C:\Users\Jane Doe\AppData\Local\lnk\state`, Exe: `C:\Users\Jane Doe\Downloads\lnk.exe`},
	}
	for name, o := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := o.Plan(icon)
			if err != nil {
				t.Fatal(err)
			}
			got := render(p)
			file := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("plan differs from %s (go test -update rewrites it):\n%s", file, got)
			}
		})
	}
}

func TestPlanRefuses(t *testing.T) {
	for name, o := range map[string]Options{
		"no home":       {OS: "linux", StateDir: "/s", Exe: "/bin/lnk"},
		"relative exe":  {OS: "linux", Home: "/h", StateDir: "/s", Exe: "lnk"},
		"bad autostart": {OS: "linux", Home: "/h", StateDir: "/s", Exe: "/bin/lnk", Autostart: "cron"},
		"no appdata":    {OS: "windows", Home: `C:\h`, StateDir: `C:\s`, Exe: `C:\lnk.exe`},
		"no state":      {OS: "linux", Home: "/h", Exe: "/bin/lnk"},
		"newline":       {OS: "linux", Home: "/h", StateDir: "/s", Exe: "/bin/lnk\nX-Injected=1"},
		"not utf-8":     {OS: "linux", Home: "/h", StateDir: "/s", Exe: "/bin/\xfflnk"},
		"quote in a windows path": {OS: "windows", Home: `C:\h`, LocalAppData: `C:\a`, StateDir: `C:\s`,
			Exe: `C:\a"b\lnk.exe`, InPlace: true},
	} {
		if _, err := o.Plan(nil); err == nil {
			t.Errorf("%s: planned", name)
		}
	}
}

func TestQuoting(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/lnk":      "/usr/bin/lnk",
		"/home/a b/lnk":     `"/home/a b/lnk"`,
		`/x/"q"$v`:          `"/x/\\"q\\"\\$v"`,
		"/x/100%":           `"/x/100%%"`,
		"/x/back\\slash":    `"/x/back\\\\slash"`,
		"/x/tick`cmd`":      "\"/x/tick\\\\`cmd\\\\`\"",
		"/x/semi;colon&amp": `"/x/semi;colon&amp"`,
	} {
		if got := desktopExec(in); got != want {
			t.Errorf("desktopExec(%q) = %s, want %s", in, got, want)
		}
	}
	if got := systemdQuote(`/a b/$x%"\`); got != `"/a b/$$x%%\"\\"` {
		t.Errorf("systemdQuote = %s", got)
	}
}
