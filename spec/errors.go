package spec

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Error is a problem with a spec, located by file, line and key path.
// Line is 0 when the problem is with the file as a whole.
type Error struct {
	File string // the spec's file name as given, or "default" for the embedded spec
	Line int    // 1-based line, 0 if unknown
	Key  string // key path such as "network.hosts[2]", empty for the whole file
	Msg  string // what is wrong, and where possible what to do
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors returns every *Error inside err (joined or wrapped), in order.
func Errors(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var se *Error
		if errors.As(err, &se) {
			out = append(out, se)
		}
	}
	walk(err)
	return out
}

// lazyRE compiles a pattern on first use: errors are rare, and every lnk
// process links this package, so start-up should not pay for them.
func lazyRE(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// libErrRE matches the TOML library's unify errors, which carry their
// position only in their text.
var libErrRE = lazyRE(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// fromLibError turns an error of the TOML library into an *Error.
func fromLibError(file string, err error) *Error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &Error{File: file, Line: pe.Position.Line, Key: pe.LastKey, Msg: tidyLibMsg(pe.Message)}
	}
	if m := libErrRE().FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: line, Key: m[2], Msg: tidyLibMsg(m[3])}
	}
	return &Error{File: file, Msg: tidyLibMsg(strings.TrimPrefix(err.Error(), "toml: "))}
}

var dupKeyRE = lazyRE(`^Key '([^']*)' has already been defined\.?$`)

var mismatchRE = lazyRE(`^type mismatch for \S+: expected table but found (\S+)$`)

var typeMsgRE = lazyRE(`^incompatible types: TOML value has type (\S+); destination has type (\S+)$`)

// tidyLibMsg rewrites the library's wording into the user's terms.
func tidyLibMsg(msg string) string {
	if m := dupKeyRE().FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%q is set twice: keep one", m[1])
	}
	if m := mismatchRE().FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("wrong type: found %s, want a table", tomlKind(m[1]))
	}
	if m := typeMsgRE().FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("wrong type: found %s, want %s", tomlKind(m[1]), tomlKind(m[2]))
	}
	return msg
}

func tomlKind(t string) string {
	switch strings.TrimSuffix(t, ";") {
	case "string":
		return "a string"
	case "slice", "array", "[]string":
		return "a list"
	case "bool", "boolean":
		return "true or false"
	case "struct", "map", "map[string]interface", "hash", "table":
		return "a table"
	case "[]map[string]any", "[]map[string]interface{}":
		return "an array of tables ([[…]])"
	case "int64", "integer":
		return "an integer"
	case "float64", "float":
		return "a number"
	}
	return t
}
