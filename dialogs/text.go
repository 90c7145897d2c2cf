package dialogs

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of the text a question shows.
const (
	// lineWidth is where the subject is wrapped.
	lineWidth = 72
	// maxDetail is the longest detail line shown; longer ones are elided
	// in the middle.
	maxDetail = 400
	// maxDetails is the number of detail lines shown.
	maxDetails = 24
	// maxName bounds a sandbox name or folder in a title.
	maxName = 80
)

// Clean returns s as printable ASCII that means what it shows: bytes from
// space to '~' pass, a backslash is doubled, and everything else (control
// characters, newlines, bidi overrides, zero-width and other non-ASCII
// characters) is escaped as \n, \t, \u{XXXX}, or \xNN for a byte that is
// not UTF-8. Nothing in s can hide, reorder or restyle the text around it.
func Clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			if c == '\\' {
				b.WriteString(`\\`)
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02X`, c)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		default:
			fmt.Fprintf(&b, `\u{%04X}`, r)
		}
		i += n
	}
	return b.String()
}

// Elide cleans s and, if the result is longer than limit, keeps its start
// and end with a marker saying how much was left out. A limit below 40 is
// taken as 40.
func Elide(s string, limit int) string {
	s = Clean(s)
	limit = max(limit, 40)
	if len(s) <= limit {
		return s
	}
	marker := fmt.Sprintf(" [... %d characters not shown ...] ", len(s)-limit)
	head := (limit - len(marker)) / 2
	tail := limit - len(marker) - head
	head, tail = max(head, 8), max(tail, 8)
	return s[:head] + marker + s[len(s)-tail:]
}

// Wrap cleans s and breaks it into lines of at most width characters,
// never dropping any: the whole of s is in the result.
func Wrap(s string, width int) []string {
	s = Clean(s)
	width = max(width, 20)
	var lines []string
	for len(s) > width {
		lines = append(lines, s[:width])
		s = s[width:]
	}
	return append(lines, s)
}

// Title is the dialog's title: lnk and the sandbox that asks.
func Title(q *Question) string {
	return "lnk sandbox: " + Elide(sandboxName(q), maxName) + " asks"
}

func sandboxName(q *Question) string {
	if q.Sandbox.Name != "" {
		return q.Sandbox.Name
	}
	return q.Sandbox.ID
}

// Text is the whole question as the person reads it, in plain ASCII lines:
// who asks, what it wants, the subject whole (wrapped, never elided), and
// the details (each elided in the middle when long).
func Text(q *Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Sandbox %q (id %s)\n", Elide(sandboxName(q), maxName), Clean(q.Sandbox.ID))
	if len(q.Sandbox.Command) > 0 {
		fmt.Fprintf(&b, "running: %s\n", Elide(strings.Join(q.Sandbox.Command, " "), maxDetail))
	}
	if q.Sandbox.Folder != "" {
		fmt.Fprintf(&b, "in folder: %s\n", Elide(q.Sandbox.Folder, maxDetail))
	}
	action := q.Action
	if action == "" {
		action = "asks"
	}
	fmt.Fprintf(&b, "\n%s:\n\n", Elide(action, maxDetail))
	for _, l := range Wrap(q.Subject, lineWidth) {
		b.WriteString("    " + l + "\n")
	}
	if len(q.Details) > 0 {
		b.WriteString("\n")
		for i, d := range q.Details {
			if i == maxDetails {
				fmt.Fprintf(&b, "[... %d more lines not shown ...]\n", len(q.Details)-i)
				break
			}
			b.WriteString(Elide(d, maxDetail) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
