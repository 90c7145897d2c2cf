package cli

import (
	"bytes"
	"testing"
)

// feedAll types s and returns what reached the sandbox and the answers.
func feedAll(m *codeMatcher, s string) (pass string, answers []matchResult) {
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		r := m.feed(s[i])
		b.Write(r.pass)
		if r.id != "" {
			answers = append(answers, r)
		}
	}
	return b.String(), answers
}

func TestCodeMatcher(t *testing.T) {
	m := newCodeMatcher()
	m.add("K7Q2M", "q1")
	for _, tc := range []struct {
		typed, pass, id, choice, bad string
	}{
		{"ls -l\r", "ls -l\r", "", "", ""},
		{"K7Q2M allow\r", "", "q1", "allow", ""},
		{"k7q2m deny\r", "", "q1", "deny", ""},
		{"K7Q2M always\n", "", "q1", "always", ""},
		{"K7Q2M maybe\r", "", "q1", "", "maybe"},
		{"K7Q2X allow\r", "K7Q2X allow\r", "", "", ""}, // not the code: not an answer
		{"K7\r", "K7\r", "", "", ""},
		{"K7Q2M alloww\x7f\r", "", "q1", "allow", ""},
		{"K7Q2M allow-now\r", "K7Q2M allow-now\r", "", "", ""},
		{"echo K7Q2M allow\r", "echo K7Q2M allow\r", "", "", ""},
	} {
		pass, answers := feedAll(m, tc.typed)
		if pass != tc.pass {
			t.Errorf("%q: the sandbox got %q, want %q", tc.typed, pass, tc.pass)
		}
		if tc.id == "" {
			if len(answers) != 0 {
				t.Errorf("%q: answered %+v", tc.typed, answers)
			}
			continue
		}
		if len(answers) != 1 || answers[0].id != tc.id || answers[0].choice != tc.choice || answers[0].bad != tc.bad {
			t.Errorf("%q: answers %+v", tc.typed, answers)
		}
	}
}

func TestCodeMatcherReleasesWhenSettled(t *testing.T) {
	m := newCodeMatcher()
	m.add("ABCDE", "q1")
	if pass, _ := feedAll(m, "ABC"); pass != "" {
		t.Fatalf("held bytes passed early: %q", pass)
	}
	r := m.remove("q1")
	if string(r.pass) != "ABC" {
		t.Fatalf("released %q, want ABC", r.pass)
	}
	if pass, _ := feedAll(m, "ABCDE allow\r"); pass != "ABCDE allow\r" {
		t.Fatalf("with no question waiting, typing passes: got %q", pass)
	}
}

func FuzzCodeMatcher(f *testing.F) {
	f.Add("K7Q2M allow\r", "hello\rK7Q\x7f\x7fworld")
	f.Fuzz(func(t *testing.T, a, b string) {
		m := newCodeMatcher()
		m.add("K7Q2M", "q1")
		pass, answers := feedAll(m, a+b)
		// Every typed byte either reached the sandbox, is still held,
		// or was part of an answer (or erased with backspace).
		if len(pass)+len(m.held) > len(a+b) {
			t.Fatalf("more bytes out than in: %q", pass)
		}
		if len(answers) == 0 && m.held == nil && !bytes.Contains([]byte(a+b), []byte{0x7f}) && !bytes.Contains([]byte(a+b), []byte{0x08}) && pass != a+b {
			t.Fatalf("no answer, yet the sandbox got %q of %q", pass, a+b)
		}
		for _, r := range answers {
			if r.id != "q1" {
				t.Fatalf("answer for %q", r.id)
			}
		}
	})
}
