package confine

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// commandLineToArgv splits a command line as CommandLineToArgvW does
// (the C runtime's rules since 2008): the program up to the first space
// or tab outside quotes, quotes toggling and no escapes in it; then, per
// argument, 2n backslashes and a quote give n backslashes and toggle
// quoting, 2n+1 backslashes and a quote give n backslashes and a quote,
// other backslashes are themselves, and "" inside quotes is one quote.
func commandLineToArgv(line string) []string {
	var out []string
	i := 0
	var prog strings.Builder
	inQ := false
	for ; i < len(line); i++ {
		c := line[i]
		if c == '"' {
			inQ = !inQ
			continue
		}
		if !inQ && (c == ' ' || c == '\t') {
			break
		}
		prog.WriteByte(c)
	}
	out = append(out, prog.String())
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			return out
		}
		var a strings.Builder
		inQ = false
		for i < len(line) {
			c := line[i]
			if !inQ && (c == ' ' || c == '\t') {
				break
			}
			if c == '\\' {
				n := 0
				for i < len(line) && line[i] == '\\' {
					n++
					i++
				}
				if i < len(line) && line[i] == '"' {
					a.WriteString(strings.Repeat(`\`, n/2))
					if n%2 == 1 {
						a.WriteByte('"')
						i++
					}
					continue
				}
				a.WriteString(strings.Repeat(`\`, n))
				continue
			}
			if c == '"' {
				if inQ && i+1 < len(line) && line[i+1] == '"' {
					a.WriteByte('"')
					i += 2
					continue
				}
				inQ = !inQ
				i++
				continue
			}
			a.WriteByte(c)
			i++
		}
		out = append(out, a.String())
	}
}

func TestWindowsCommandLine(t *testing.T) {
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"git", "status"}, `git status`},
		{[]string{`C:\Program Files\Git\bin\git.exe`, "log", "--format=%H %s"}, `"C:\Program Files\Git\bin\git.exe" log "--format=%H %s"`},
		{[]string{"x", ""}, `x ""`},
		{[]string{"x", `a\b`, `a\\"b`, `tail\`, `sp ace\`}, `x a\b "a\\\\\"b" tail\ "sp ace\\"`},
		{[]string{"x", `"`, `\"`}, `x "\"" "\\\""`},
		{[]string{"x", "new\nline", "tab\tx"}, "x \"new\nline\" \"tab\tx\""},
	}
	for _, c := range cases {
		got, err := WindowsCommandLine(c.argv)
		if err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		if got != c.want {
			t.Errorf("%q: got %s, want %s", c.argv, got, c.want)
		}
		if back := commandLineToArgv(got); !equalStrings(back, c.argv) {
			t.Errorf("%q: reads back as %q", c.argv, back)
		}
	}
	for _, bad := range [][]string{
		{}, {""}, {`a"b`, "x"}, {"x", "a\x00b"}, {"x", "\xff"},
		{"build.cmd", "a&calc"}, {`C:\x\run.BAT`, "%PATH%"}, {"t.cmd ", `"q"`},
	} {
		if got, err := WindowsCommandLine(bad); err == nil {
			t.Errorf("%q: got %s, want an error", bad, got)
		}
	}
	if _, err := WindowsCommandLine([]string{"x", strings.Repeat("a", maxWinCommandLine)}); err == nil || !strings.Contains(err.Error(), "32766") {
		t.Errorf("an over-long line: %v", err)
	}
	if _, err := WindowsCommandLine([]string{"build.cmd", "plain", "x.txt"}); err != nil {
		t.Errorf("a batch file with plain arguments: %v", err)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzWindowsCommandLine: every argv the quoting accepts reads back
// exactly through the CommandLineToArgvW-equivalent parser.
func FuzzWindowsCommandLine(f *testing.F) {
	f.Add("prog", "a b", `c\"d`, `e\`)
	f.Add(`C:\p q\x.exe`, "", `""`, `\\\`)
	f.Add("x", "\t", "\v\n", `a"b"c`)
	f.Fuzz(func(t *testing.T, prog, a, b, c string) {
		argv := []string{prog, a, b, c}
		line, err := WindowsCommandLine(argv)
		if err != nil {
			ok := prog != "" && !strings.ContainsRune(prog, '"') && !isBatch(prog)
			for _, s := range argv {
				ok = ok && !strings.ContainsRune(s, 0) && utf8.ValidString(s)
			}
			if ok && len(line) < 1000 {
				t.Fatalf("%q refused: %v", argv, err)
			}
			return
		}
		if back := commandLineToArgv(line); !equalStrings(back, argv) {
			t.Fatalf("%q -> %s -> %q", argv, line, back)
		}
	})
}

func TestNormalizeWinPath(t *testing.T) {
	good := map[string]string{
		`C:\Users\me\work`:           `C:\USERS\ME\WORK`,
		`c:/users/ME/work/`:          `C:\USERS\ME\WORK`,
		`C:\Users\me\.\x\..\work\\`:  `C:\USERS\ME\WORK`,
		`C:\`:                        `C:\`,
		`C:\..\..`:                   `C:\`,
		`\\?\C:\Users\me\work`:       `C:\USERS\ME\WORK`,
		`\\server\share\dir`:         `\\SERVER\SHARE\DIR`,
		`\\?\UNC\server\share\dir\.`: `\\SERVER\SHARE\DIR`,
		`//server/share`:             `\\SERVER\SHARE`,
	}
	for in, want := range good {
		got, err := NormalizeWinPath(in)
		if err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "work", `C:work`, `\work`, `\\.\pipe\x`, `\\server`, "C:\\a\x00b", `\\?\`} {
		if got, err := NormalizeWinPath(bad); err == nil {
			t.Errorf("%q: got %q, want an error", bad, got)
		}
	}
}

func TestWriteSID(t *testing.T) {
	a := WriteSID(`C:\USERS\ME\WORK`)
	if !regexp.MustCompile(`^S-1-4(-[0-9]{1,10}){4}$`).MatchString(a) {
		t.Fatalf("write SID %s is not S-1-4-A-B-C-D", a)
	}
	if a != WriteSID(`C:\USERS\ME\WORK`) {
		t.Error("the write SID is not stable")
	}
	if a == WriteSID(`C:\USERS\ME\WORK2`) {
		t.Error("two folders share a write SID")
	}
	// The derivation is fixed: a change of it is a change of writeSIDTag.
	if want := "S-1-4-"; !strings.HasPrefix(a, want) {
		t.Errorf("got %s", a)
	}
	p1, _ := PlanWinRun([]string{"--workspace", `c:\users\me\work\`, "--temp", `C:\t`, "--mode", "read-only", "--", "x"})
	p2, _ := PlanWinRun([]string{"--workspace", `C:/Users/Me/Work`, "--temp", `C:\t`, "--mode", "read-only", "--", "x"})
	if p1 == nil || p2 == nil || p1.WriteSID != p2.WriteSID {
		t.Error("two spellings of one folder get different write SIDs")
	}
}

func TestParseWinRunArgsRefuses(t *testing.T) {
	base := []string{"--workspace", `C:\w`, "--temp", `C:\t`, "--mode", "workspace-write"}
	cases := map[string][]string{
		"no command":     append(append([]string{}, base...), "--"),
		"no --":          base,
		"unknown":        append([]string{"--net", "x"}, append(base, "--", "x")...),
		"twice":          append([]string{"--mode", "read-only"}, append(base, "--", "x")...),
		"bad mode":       {"--workspace", `C:\w`, "--temp", `C:\t`, "--mode", "rw", "--", "x"},
		"no workspace":   {"--temp", `C:\t`, "--mode", "read-only", "--", "x"},
		"no temp":        {"--workspace", `C:\w`, "--mode", "read-only", "--", "x"},
		"no mode":        {"--workspace", `C:\w`, "--temp", `C:\t`, "--", "x"},
		"empty value":    {"--workspace", "--", "x"},
		"empty sid":      append(append([]string{"--write-sid", ""}, base...), "--", "x"),
		"relative":       {"--workspace", `w`, "--temp", `C:\t`, "--mode", "read-only", "--", "x"},
		"temp is ws":     {"--workspace", `C:\w`, "--temp", `c:/W/`, "--mode", "workspace-write", "--", "x"},
		"wrong sid":      append(append([]string{"--write-sid", "S-1-4-1-2-3-4"}, base...), "--", "x"),
		"quote in prog":  append(append([]string{}, base...), "--", `a"b`),
		"batch metachar": append(append([]string{}, base...), "--", "x.bat", "a|b"),
	}
	for name, args := range cases {
		if p, err := PlanWinRun(args); err == nil {
			t.Errorf("%s: %q planned %+v, want an error", name, args, p)
		}
	}
}

// TestGoldenWinPlan: the plans of the runner's cases, one golden file each.
func TestGoldenWinPlan(t *testing.T) {
	ws := `C:\Users\me\work`
	sid := WriteSID(`C:\USERS\ME\WORK`)
	cases := map[string][]string{
		"workspace-write":             {"--workspace", ws, "--temp", `C:\Users\me\AppData\Local\Temp\lnk-1`, "--mode", "workspace-write", "--", "npm", "test", "--", "a b"},
		"workspace-write-seam":        {"--workspace", ws, "--temp", `C:\Users\me\AppData\Local\Temp\lnk-1`, "--mode", "workspace-write", "--write-sid", sid, "--", `C:\Program Files\nodejs\node.exe`, "-e", `console.log("hi \\o/")`},
		"read-only":                   {"--workspace", ws, "--temp", `C:\Users\me\AppData\Local\Temp\lnk-1`, "--mode", "read-only", "--", "cmd.exe", "/c", "echo", "x"},
		"read-only-seam":              {"--write-sid", strings.ToLower(sid), "--mode", "read-only", "--workspace", ws, "--temp", `C:\T`, "--", "git", "status"},
		"workspace-write-unc":         {"--workspace", `\\srv\share\proj\`, "--temp", `\\?\C:\Temp\lnk-2`, "--mode", "workspace-write", "--", "make"},
		"workspace-write-batch-plain": {"--workspace", ws, "--temp", `C:\T`, "--mode", "workspace-write", "--", `build.cmd`, "release", "x64"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := PlanWinRun(args)
			if err != nil {
				t.Fatal(err)
			}
			if back := commandLineToArgv(p.CommandLine); !equalStrings(back, args[indexOf(args, "--")+1:]) {
				t.Errorf("command line %s reads back as %q", p.CommandLine, back)
			}
			checkWinPlanContract(t, p)
			got := "args: " + strings.Join(args, " ") + "\n" + formatWinPlan(p)
			checkGolden(t, filepath.Join("testdata", "windows", name+".golden"), got, "TestGoldenWinPlan")
		})
	}
}

// formatWinPlan is the golden text of a plan: one field a line, paths
// and the command line as they are (no JSON escapes to read through).
func formatWinPlan(p *WinPlan) string {
	var b strings.Builder
	line := func(k string, v ...string) { fmt.Fprintf(&b, "%-15s %s\n", k+":", strings.Join(v, " ")) }
	line("mode", p.Mode)
	line("workspace", p.Workspace)
	line("temp", p.Temp)
	line("write SID", p.WriteSID)
	line("seam-managed", fmt.Sprint(p.SeamManaged))
	line("restricting", p.Restricting...)
	line("dropped", p.Dropped...)
	for _, a := range p.Grant {
		line("grant", a.Path, a.SID, fmt.Sprintf("%#x", a.Mask), "(inherited by files and folders)")
	}
	for _, a := range p.RevokeOnExit {
		line("revoke on exit", a.Path, a.SID)
	}
	for _, e := range p.Env {
		line("set env", e)
	}
	line("program", p.Program)
	line("command line", p.CommandLine)
	return b.String()
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// checkWinPlanContract holds a plan to the runner's contract.
func checkWinPlanContract(t *testing.T, p *WinPlan) {
	t.Helper()
	keep := []string{SIDLogon, SIDEveryone}
	if p.Mode == WinWorkspaceWrite {
		keep = append(keep, p.WriteSID)
	}
	if !equalStrings(p.Restricting, keep) {
		t.Errorf("restricting SIDs %q, want %q", p.Restricting, keep)
	}
	for _, d := range []string{SIDAuthenticatedUsers, SIDInteractive, SIDLocal} {
		if indexOf(p.Restricting, d) >= 0 || indexOf(p.Dropped, d) < 0 {
			t.Errorf("%s must be dropped", d)
		}
	}
	switch {
	case p.Mode == WinReadOnly && (len(p.Grant) > 0 || len(p.RevokeOnExit) > 0 || len(p.Env) > 0):
		t.Error("read-only grants nothing and changes nothing")
	case p.SeamManaged && (len(p.Grant) > 0 || len(p.RevokeOnExit) > 0):
		t.Error("with --write-sid the runner neither grants nor revokes")
	case p.Mode == WinWorkspaceWrite && !p.SeamManaged:
		if len(p.Grant) != 2 || p.Grant[0].Path != p.Workspace || p.Grant[1].Path != p.Temp ||
			len(p.RevokeOnExit) != 1 || p.RevokeOnExit[0].Path != p.Temp {
			t.Errorf("self-managed: grants %+v, revokes %+v", p.Grant, p.RevokeOnExit)
		}
	case p.Mode == WinWorkspaceWrite && p.SeamManaged:
		if len(p.Env) != 2 || !strings.HasPrefix(p.Env[0], "TMP=") || !strings.HasPrefix(p.Env[1], "TEMP=") {
			t.Errorf("seam-managed workspace-write must point TMP and TEMP at --temp: %q", p.Env)
		}
	}
	for _, a := range append(append([]WinACE{}, p.Grant...), p.RevokeOnExit...) {
		if a.SID != p.WriteSID || a.Mask != WinModify {
			t.Errorf("ACE %+v is not the write SID's Modify", a)
		}
	}
}
