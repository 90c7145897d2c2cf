package confine

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// SBPL (Seatbelt's profile language) quoting. Paths go into two kinds of
// literal:
//
//   - strings, "…", for literal and subpath filters: a backslash and a
//     double quote are escaped with a backslash, every other byte is
//     itself. A path with a control character or invalid UTF-8 is refused:
//     no escape for it is certain to mean the same to every sandbox-exec.
//   - regexes, #"…", which the reader takes raw up to the next double
//     quote. A regex never holds a double quote or a backslash other than
//     the one before a metacharacter it escapes. Where a path has one of
//     those two characters, a rule that denies matches any one character
//     there (it denies a little more); a rule that allows is refused.

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) (string, error) {
	if err := sbplCheck(s); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String(), nil
}

// sbplCheck refuses what no profile literal carries for certain.
func sbplCheck(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("seatbelt: path %q is not valid UTF-8: rename it or leave it out of the spec", s)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("seatbelt: path %q has a control character, which a Seatbelt profile cannot carry safely: rename it or leave it out of the spec", s)
		}
	}
	return nil
}

// regexMeta are the characters a POSIX extended regex gives a meaning.
const regexMeta = `.^$*+?()[]{}|`

// regexLiteral is s as a regex matching s itself. broad is true when a
// character had to become "." (see above).
func regexLiteral(s string) (re string, broad bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('.')
			broad = true
		case r < 0x80 && strings.ContainsRune(regexMeta, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), broad
}

// regexFold is like regexLiteral but matches ASCII letters in either case,
// for names a case-insensitive file system (macOS's default) would let a
// sandbox create in another case.
func regexFold(s string) (re string, broad bool) {
	var b strings.Builder
	for _, r := range s {
		lo, up := strings.ToLower(string(r)), strings.ToUpper(string(r))
		if r < 0x80 && lo != up {
			b.WriteString("[" + up + lo + "]")
			continue
		}
		x, br := regexLiteral(string(r))
		broad = broad || br
		b.WriteString(x)
	}
	return b.String(), broad
}

// globRegex turns an absolute glob of spec's syntax (path.Match per
// component, "**" for zero or more whole components, a match covering its
// subtree) into an anchored regex: the pattern is anchored at its own
// root, the folder or home it was written against, never at the working
// folder. broad is true when the regex matches more than the glob.
func globRegex(glob string) (re string, broad bool, err error) {
	if err := sbplCheck(glob); err != nil {
		return "", false, err
	}
	if !strings.HasPrefix(glob, "/") {
		return "", false, fmt.Errorf("seatbelt: glob %q is not absolute", glob)
	}
	var b strings.Builder
	b.WriteString("^")
	comps := strings.Split(strings.TrimPrefix(glob, "/"), "/")
	for i, c := range comps {
		if c == "**" {
			if i == len(comps)-1 {
				continue // a trailing ** matches the base and all below: the suffix says so
			}
			b.WriteString("(/[^/]+)*")
			continue
		}
		if _, err := path.Match(c, ""); err != nil {
			return "", false, fmt.Errorf("seatbelt: glob %q: %v", glob, err)
		}
		x, br := componentRegex(c)
		broad = broad || br
		b.WriteString("/" + x)
	}
	b.WriteString("(/.*)?$")
	return b.String(), broad, nil
}

// componentRegex converts one path.Match component.
func componentRegex(c string) (string, bool) {
	var b strings.Builder
	broad := false
	for i := 0; i < len(c); {
		switch c[i] {
		case '*':
			b.WriteString("[^/]*")
			i++
		case '?':
			b.WriteString("[^/]")
			i++
		case '\\':
			if i+1 < len(c) {
				r, n := utf8.DecodeRuneInString(c[i+1:])
				x, br := regexLiteral(string(r))
				b.WriteString(x)
				broad = broad || br
				i += 1 + n
				continue
			}
			b.WriteByte('.')
			broad = true
			i++
		case '[':
			x, n, br := classRegex(c[i:])
			b.WriteString(x)
			broad = broad || br
			i += n
		default:
			r, n := utf8.DecodeRuneInString(c[i:])
			x, br := regexLiteral(string(r))
			b.WriteString(x)
			broad = broad || br
			i += n
		}
	}
	return b.String(), broad
}

// classRegex converts a path.Match class at the start of s ("[…]"),
// returning the regex, the bytes consumed and whether it was widened. A
// class of letters, digits, '.', '_' and ranges between letters or digits
// converts exactly; any other class becomes one character of any kind
// but '/' (wider than the glob).
func classRegex(s string) (string, int, bool) {
	end := -1
	for i := 1; i < len(s); i++ {
		if s[i] == '\\' {
			i++ // an escaped character, ']' included
			continue
		}
		if s[i] == ']' {
			end = i
			break
		}
	}
	if end < 0 {
		return "[^/]", len(s), true // path.Match refused it already; fail wide
	}
	body := s[1:end]
	neg := strings.HasPrefix(body, "^")
	if neg {
		body = body[1:]
	}
	if !simpleClass(body) {
		return "[^/]", end + 1, true
	}
	if neg {
		return "[^/" + body + "]", end + 1, false
	}
	return "[" + body + "]", end + 1, false
}

// simpleClass reports whether a class body is members and ranges of
// letters and digits, '.' and '_' only, with a '-' only inside a range.
func simpleClass(body string) bool {
	if body == "" {
		return false
	}
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '-':
			if i == 0 || i == len(body)-1 || !alnum(body[i-1]) || !alnum(body[i+1]) || body[i-1] > body[i+1] {
				return false
			}
		case alnum(c) || c == '.' || c == '_':
		default:
			return false
		}
	}
	return true
}
