package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// MaxSize is the largest spec file Parse reads. A spec is a short list of
// paths and names; anything larger is a mistake or an attack.
const MaxSize = 1 << 20

// maxDepth bounds the nesting of arrays and inline tables in a spec file.
// The format itself nests three levels.
const maxDepth = 8

// Load reads and parses the spec file at path. Errors name the path as
// given.
func Load(path string) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read the spec: %v", errors.Unwrap(err))}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read the spec: %v", err)}
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: "not a regular file: name a .toml file"}
	}
	if fi.Size() > MaxSize {
		return nil, sizeError(path, fi.Size())
	}
	// The file may grow after Stat: read one byte past the limit, and let
	// Parse refuse what is too large.
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read the spec: %v", err)}
	}
	return Parse(path, data)
}

func sizeError(file string, size int64) error {
	return &Error{File: file, Msg: fmt.Sprintf("spec is %d bytes, more than the %d a spec may have: is this the right file?", size, MaxSize)}
}

// Parse parses a spec from data; file names it in errors. It checks
// everything that can be checked without looking at the machine: unknown
// keys, types, and the form of every value. All problems found are
// returned together (see [Errors]).
func Parse(file string, data []byte) (*Spec, error) {
	if len(data) > MaxSize {
		return nil, sizeError(file, int64(len(data)))
	}
	if !utf8.Valid(data) {
		return nil, &Error{File: file, Line: invalidUTF8Line(data), Msg: "not valid UTF-8: save the spec as UTF-8 text"}
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, &Error{File: file, Line: 1 + bytes.Count(data[:bytes.IndexByte(data, 0)], []byte("\n")), Msg: "contains a NUL byte: a spec is text"}
	}
	if line, ok := checkDepth(data); !ok {
		return nil, &Error{File: file, Line: line, Msg: fmt.Sprintf("lists or tables nested more than %d deep: a spec nests at most 3", maxDepth)}
	}
	var s Spec
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&s)
	if err != nil {
		e := fromLibError(file, err)
		if e.Line == 0 && e.Key != "" {
			e.Line = keyLine(data, strings.Split(e.Key, "."))
		}
		return nil, e
	}
	var errs []error
	var bad []string // keys already reported: their children are not
	for _, k := range md.Keys() {
		if hasPrefixKey(k, bad) {
			continue
		}
		if msg := checkKey(k); msg != "" {
			errs = append(errs, &Error{File: file, Line: keyLine(data, k), Key: k.String(), Msg: msg})
			bad = append(bad, k.String())
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	v := validator{file: file, data: data}
	v.spec(&s)
	if len(v.errs) > 0 {
		sort.SliceStable(v.errs, func(i, j int) bool { return v.errs[i].Line < v.errs[j].Line })
		out := make([]error, len(v.errs))
		for i, e := range v.errs {
			out[i] = e
		}
		return nil, errors.Join(out...)
	}
	s.src = data
	return &s, nil
}

func hasPrefixKey(k toml.Key, prefixes []string) bool {
	ks := k.String()
	for _, p := range prefixes {
		if strings.HasPrefix(ks, p+".") {
			return true
		}
	}
	return false
}

func invalidUTF8Line(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r == utf8.RuneError && n <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		data = data[n:]
	}
	return line
}

// checkKey reports what is wrong with key k of a spec file, or "" if it
// names a field of Spec exactly (the library would accept a different case;
// a spec may not).
func checkKey(k toml.Key) string {
	t := reflect.TypeOf(Spec{})
	for i, name := range k {
		if t.Kind() != reflect.Struct {
			return "" // inside a value; the decoder has checked its type
		}
		f, ok := fieldByTag(t, name)
		if !ok {
			known := tagNames(t)
			for _, kn := range known {
				if strings.EqualFold(kn, name) {
					return fmt.Sprintf("unknown key %q: keys are lower case, did you mean %q?", name, kn)
				}
			}
			where := "at the top"
			if i > 0 {
				where = "in [" + strings.Join(k[:i], ".") + "]"
			}
			return fmt.Sprintf("unknown key %q: the keys %s are %s", name, where, strings.Join(known, ", "))
		}
		t = f.Type
	}
	return ""
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.IsExported() && tomlName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}

func tagNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if n := tomlName(t.Field(i)); n != "" && t.Field(i).IsExported() {
			out = append(out, n)
		}
	}
	return out
}
