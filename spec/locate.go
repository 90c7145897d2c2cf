package spec

import (
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// The TOML library knows where each key is but does not say; it does say
// when a value fails to decode. keyLine asks it by decoding the file into a
// struct built for one key path whose leaf always fails.

type lineProbe struct{}

var errProbe = errors.New("line probe")

// UnmarshalTOML fails on purpose so the decoder reports the key's position.
func (lineProbe) UnmarshalTOML(any) error { return errProbe }

// keyLine returns the 1-based line of key k in data, or 0 if it can't tell.
func keyLine(data []byte, k []string) int {
	if len(k) == 0 {
		return 0
	}
	t := reflect.TypeOf(lineProbe{})
	for i := len(k) - 1; i >= 0; i-- {
		if strings.ContainsAny(k[i], ",\"\\") {
			return 0 // cannot be put in a struct tag faithfully
		}
		t = reflect.StructOf([]reflect.StructField{{
			Name: "F",
			Type: t,
			Tag:  reflect.StructTag(`toml:` + strconv.Quote(k[i])),
		}})
	}
	v := reflect.New(t)
	_, err := toml.Decode(string(data), v.Interface())
	// The probe's own error carries the key's line; any other parse error
	// (a type clash on the way to the key) carries a line near it.
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return pe.Position.Line
	}
	return 0
}

// elemLine returns the line of the index-th element of the first array
// that starts on or after line keyLine, or keyLine if it can't tell.
func elemLine(data []byte, keyLine, index int) int {
	if keyLine <= 0 {
		return keyLine
	}
	found := keyLine
	depth, n, started := 0, 0, false
	scanTOML(data, func(tok byte, line int) bool {
		if line < keyLine {
			return true
		}
		switch tok {
		case '[', '{':
			if !started && tok == '[' {
				started = true
				depth = 1
				return true
			}
			if started {
				if depth == 1 && tok == '{' || depth == 1 && tok == '[' {
					if n == index {
						found = line
						return false
					}
					n++
				}
				depth++
			}
		case ']', '}':
			if started {
				depth--
				if depth == 0 {
					return false
				}
			}
		case '"':
			if started && depth == 1 {
				if n == index {
					found = line
					return false
				}
				n++
			}
		}
		return true
	})
	return found
}

// checkDepth reports whether arrays and inline tables nest at most maxDepth
// deep, and if not the line where they go deeper.
func checkDepth(data []byte) (int, bool) {
	depth, bad := 0, 0
	scanTOML(data, func(tok byte, line int) bool {
		switch tok {
		case '[', '{':
			depth++
			if depth > maxDepth {
				bad = line
				return false
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
		return true
	})
	return bad, bad == 0
}

// scanTOML walks data calling fn for each bracket or brace outside strings
// and comments, and with '"' at the start of each string. It stops when fn
// returns false. It is a lexer just good enough to count nesting and find
// list elements; the TOML library does the real parsing.
func scanTOML(data []byte, fn func(tok byte, line int) bool) {
	line := 1
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case '\n':
			line++
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
		case '[', ']', '{', '}':
			if !fn(c, line) {
				return
			}
		case '"', '\'':
			if !fn('"', line) {
				return
			}
			i, line = skipString(data, i, line)
		}
	}
}

// skipString returns the index of the last byte of the string starting at
// data[i], and the line it ends on.
func skipString(data []byte, i, line int) (int, int) {
	q := data[i]
	multi := i+2 < len(data) && data[i+1] == q && data[i+2] == q
	if multi {
		i += 3
		for ; i < len(data); i++ {
			switch {
			case data[i] == '\n':
				line++
			case q == '"' && data[i] == '\\':
				i++
				if i < len(data) && data[i] == '\n' {
					line++
				}
			case data[i] == q && i+2 < len(data) && data[i+1] == q && data[i+2] == q:
				i += 2
				for i+1 < len(data) && data[i+1] == q {
					i++
				}
				return i, line
			}
		}
		return len(data), line
	}
	for i++; i < len(data); i++ {
		switch {
		case data[i] == '\n':
			return i - 1, line // unterminated; the parser will say so
		case q == '"' && data[i] == '\\':
			i++
		case data[i] == q:
			return i, line
		}
	}
	return len(data), line
}
