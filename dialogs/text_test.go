package dialogs

import (
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                 "plain",
		"a\\b":                  `a\\b`,
		"line\nbreak\ttab":      `line\nbreak\ttab`,
		"\x1b[31mred":           `\u{001B}[31mred`,
		"evil\u202eexe.txt":     `evil\u{202E}exe.txt`,
		"zero\u200bwidth":       `zero\u{200B}width`,
		"caf\u00e9":             `caf\u{00E9}`,
		"bad\xffbyte":           `bad\xFFbyte`,
		"\u0430pple.com":        `\u{0430}pple.com`, // Cyrillic a
		"nul\x00del\x7f":        `nul\u{0000}del\u{007F}`,
		"\U0001F600 emoji":      `\u{1F600} emoji`,
		"c1 \u0085 next line":   `c1 \u{0085} next line`,
		"ansi \u009b31m csi":    `ansi \u{009B}31m csi`,
		"tag \U000E0041 hide":   `tag \u{E0041} hide`,
		"isolate \u2066x\u2069": `isolate \u{2066}x\u{2069}`,
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestElideKeepsBothEnds(t *testing.T) {
	s := "start-" + strings.Repeat("x", 1000) + "-end"
	got := Elide(s, 100)
	if len(got) > 110 || !strings.HasPrefix(got, "start-") || !strings.HasSuffix(got, "-end") || !strings.Contains(got, "characters not shown") {
		t.Fatalf("Elide = %q", got)
	}
	if Elide("short", 100) != "short" {
		t.Fatal("a short string was changed")
	}
}

func TestTextShowsTheWholeSubject(t *testing.T) {
	host := "accounts.example.test"
	url := "https://user:pw@" + host + "/" + strings.Repeat("a", 3000) + "?q=\u202e"
	q := &Question{
		Sandbox: Sandbox{ID: "abc", Name: "agent\x1b]0;spoof\x07", Folder: "/w"},
		Action:  "wants to open a page", Subject: url,
		Details: []string{strings.Repeat("d", 5000)},
	}
	text := Text(q)
	assertPrintable(t, text)
	if !strings.Contains(strings.ReplaceAll(text, "\n    ", ""), Clean(url)) {
		t.Fatal("the subject is not whole in the text")
	}
	if !strings.Contains(text, host) {
		t.Fatal("the host is hidden")
	}
	if strings.Contains(Title(q), "\x1b") {
		t.Fatal("the title carries an escape")
	}
}

func assertPrintable(t testing.TB, s string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n') || c >= 0x7f {
			t.Fatalf("byte %#x at %d in %q", c, i, s)
		}
	}
}

func FuzzText(f *testing.F) {
	f.Add("agent", "wants to open a page", "https://example.test/", "detail")
	f.Add("a\x1b[2J", "\u202eevil", "http://xn--80ak6aa92e.com/\u200b", strings.Repeat("\n", 50))
	f.Fuzz(func(t *testing.T, name, action, subject, detail string) {
		q := &Question{
			Sandbox: Sandbox{ID: "id", Name: name, Command: []string{name, detail}, Folder: detail},
			Action:  action, Subject: subject, Details: []string{detail, subject},
		}
		text := Text(q)
		assertPrintable(t, text)
		assertPrintable(t, Title(q))
		if !strings.Contains(strings.ReplaceAll(text, "\n    ", ""), Clean(subject)) {
			t.Fatalf("subject %q not whole in %q", subject, text)
		}
	})
}
