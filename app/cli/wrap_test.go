package cli

import (
	"os/exec"
	"strings"
	"testing"

	"lnk.dev/sandbox/app/apitype"
)

var quoteCases = []string{"", "plain", "a b", "it's", "$HOME", "`x`", "a\nb", "\"q\"", "*", "~", "-n", "=x", "K=V with space", "back\\slash", "é", "!"}

// unquote reads one POSIX shell word made of bare characters and single-
// quoted parts, as shellQuote writes it; ok is false for anything else.
func unquote(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 2
		case c == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i += 2
		case strings.IndexByte(" \t\n\"$`\\|&;<>()*?[]#~{}!", c) >= 0:
			return "", false
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), true
}

func TestShellQuoteSh(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, s := range quoteCases {
		out, err := exec.Command(sh, "-c", "printf '%s|' "+shellQuote(s)).Output()
		if err != nil || string(out) != s+"|" {
			t.Errorf("sh read %q back as %q (%v)", s, out, err)
		}
	}
	line := shellLine(&apitype.WrapResponse{Argv: []string{"printf", "%s|", "it's", "a b"}, Env: []string{"X=1 2"}, Dir: "/"})
	out, err := exec.Command(sh, "-c", line).Output()
	if err != nil || string(out) != "it's|a b|" {
		t.Errorf("%s: %q %v", line, out, err)
	}
}

func FuzzShellQuote(f *testing.F) {
	for _, s := range quoteCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			return // no shell word holds NUL
		}
		q := shellQuote(s)
		got, ok := unquote(q)
		if !ok || got != s {
			t.Fatalf("shellQuote(%q) = %q reads back as %q (ok %v)", s, q, got, ok)
		}
	})
}

func TestClean(t *testing.T) {
	if got := clean("a\x1b[31mb\nc"); strings.ContainsAny(got, "\x1b\n") {
		t.Errorf("clean left control characters: %q", got)
	}
}
