package installer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// unDesktopExec reads an Exec key back as a desktop would: the key's own
// escapes, %% for %, then the quoting rules of the Desktop Entry
// Specification.
func unDesktopExec(s string) ([]string, bool) {
	s = strings.NewReplacer(`\\`, `\`, `\s`, " ", `\n`, "\n", `\t`, "\t", `\r`, "\r").Replace(s)
	s = strings.ReplaceAll(s, "%%", "%")
	var args []string
	for i := 0; i < len(s); {
		if s[i] == ' ' {
			i++
			continue
		}
		var a strings.Builder
		if s[i] == '"' {
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"`$\\", s[i+1]) >= 0 {
					i++
				}
				a.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
			i++
		} else {
			for ; i < len(s) && s[i] != ' '; i++ {
				if strings.IndexByte("\"'\\><~|&;$*?#()`", s[i]) >= 0 {
					return nil, false // must have been quoted
				}
				a.WriteByte(s[i])
			}
		}
		args = append(args, a.String())
	}
	return args, true
}

// FuzzQuoting: every Exec line install writes reads back as the very
// arguments it was made from, so a login entry runs the right program
// whatever its path holds. (The Windows Run value is quoted by
// confine.WindowsCommandLine, fuzzed there against a CommandLineToArgvW
// reader.)
func FuzzQuoting(f *testing.F) {
	f.Add("/home/jane/.local/bin/lnk", "tray")
	f.Add(`/home/j$ "100%"/b\c`, "a b")
	f.Add("/x/`id`;rm", `C:\dir with space\`)
	f.Fuzz(func(t *testing.T, a, b string) {
		// Each argument on its own: two halves of one character are each
		// invalid UTF-8 though their concatenation is not.
		if strings.ContainsFunc(a+b, func(r rune) bool { return r < 0x20 || r == 0x7f }) || !utf8.ValidString(a) || !utf8.ValidString(b) {
			return // refused by Plan
		}
		got, ok := unDesktopExec(desktopExec(a, b))
		if !ok || len(got) != 2 || got[0] != a || got[1] != b {
			t.Fatalf("desktopExec(%q, %q) = %s reads back as %q", a, b, desktopExec(a, b), got)
		}
	})
}
