package confine

import (
	"fmt"
	"regexp"
	"strings"
)

// A small SBPL reader for the tests: it reads a profile the way
// sandbox-exec's Scheme reader does for the subset lnk writes (lists,
// symbols, strings with \\ and \" escapes, raw #"…" regexes, ; comments),
// and refuses anything else, so a profile that is unbalanced or quoted
// wrongly fails the test.

type sexp struct {
	list  []sexp
	isStr bool   // a "…" string
	isRe  bool   // a #"…" regex
	atom  string // symbol, string or regex text
	isLst bool
}

func (s sexp) String() string {
	switch {
	case s.isLst:
		var parts []string
		for _, e := range s.list {
			parts = append(parts, e.String())
		}
		return "(" + strings.Join(parts, " ") + ")"
	case s.isStr:
		return fmt.Sprintf("%q", s.atom)
	case s.isRe:
		return `#"` + s.atom + `"`
	}
	return s.atom
}

type sbplReader struct {
	src string
	pos int
}

// readSBPL reads every top-level form of a profile.
func readSBPL(src string) ([]sexp, error) {
	r := &sbplReader{src: src}
	var out []sexp
	for {
		r.skip()
		if r.pos >= len(r.src) {
			return out, nil
		}
		e, err := r.read()
		if err != nil {
			return nil, err
		}
		if !e.isLst {
			return nil, fmt.Errorf("offset %d: top-level %s is not a list", r.pos, e)
		}
		out = append(out, e)
	}
}

func (r *sbplReader) skip() {
	for r.pos < len(r.src) {
		switch c := r.src[r.pos]; {
		case c == ';':
			for r.pos < len(r.src) && r.src[r.pos] != '\n' {
				r.pos++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *sbplReader) read() (sexp, error) {
	r.skip()
	if r.pos >= len(r.src) {
		return sexp{}, fmt.Errorf("unexpected end of profile: a list is not closed")
	}
	switch c := r.src[r.pos]; {
	case c == '(':
		r.pos++
		e := sexp{isLst: true}
		for {
			r.skip()
			if r.pos >= len(r.src) {
				return sexp{}, fmt.Errorf("unexpected end of profile: a list is not closed")
			}
			if r.src[r.pos] == ')' {
				r.pos++
				return e, nil
			}
			x, err := r.read()
			if err != nil {
				return sexp{}, err
			}
			e.list = append(e.list, x)
		}
	case c == ')':
		return sexp{}, fmt.Errorf("offset %d: unbalanced )", r.pos)
	case c == '"':
		return r.str()
	case c == '#' && strings.HasPrefix(r.src[r.pos:], `#"`):
		r.pos += 2
		end := strings.IndexByte(r.src[r.pos:], '"')
		if end < 0 {
			return sexp{}, fmt.Errorf("offset %d: regex not closed", r.pos)
		}
		re := r.src[r.pos : r.pos+end]
		r.pos += end + 1
		return sexp{isRe: true, atom: re}, nil
	default:
		start := r.pos
		for r.pos < len(r.src) && !strings.ContainsRune("() \t\r\n\";", rune(r.src[r.pos])) {
			r.pos++
		}
		if r.pos < len(r.src) && r.src[r.pos] == '"' {
			return sexp{}, fmt.Errorf("offset %d: a quote inside a symbol", r.pos)
		}
		return sexp{atom: r.src[start:r.pos]}, nil
	}
}

func (r *sbplReader) str() (sexp, error) {
	r.pos++ // opening quote
	var b strings.Builder
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		switch c {
		case '"':
			r.pos++
			return sexp{isStr: true, atom: b.String()}, nil
		case '\\':
			if r.pos+1 >= len(r.src) {
				return sexp{}, fmt.Errorf("offset %d: string not closed", r.pos)
			}
			n := r.src[r.pos+1]
			if n != '\\' && n != '"' {
				return sexp{}, fmt.Errorf("offset %d: escape \\%c is not one lnk writes", r.pos, n)
			}
			b.WriteByte(n)
			r.pos += 2
		default:
			if c < 0x20 || c == 0x7f {
				return sexp{}, fmt.Errorf("offset %d: control character in a string", r.pos)
			}
			b.WriteByte(c)
			r.pos++
		}
	}
	return sexp{}, fmt.Errorf("string not closed")
}

// sbRuleT is one rule as the evaluator sees it.
type sbRuleT struct {
	allow bool
	ops   []string
	filt  []sexp
}

// profileRules turns the forms into rules, checking their shape: only
// version, allow and deny; filters of known kinds with one string or
// regex; every regex compiles and escapes only metacharacters.
func profileRules(forms []sexp) ([]sbRuleT, error) {
	var out []sbRuleT
	for i, f := range forms {
		if len(f.list) == 0 || f.list[0].isStr || f.list[0].isRe || f.list[0].isLst {
			return nil, fmt.Errorf("form %d: %s has no head symbol", i, f)
		}
		switch f.list[0].atom {
		case "version":
			if i != 0 || len(f.list) != 2 || f.list[1].atom != "1" {
				return nil, fmt.Errorf("form %d: version must come first and be 1", i)
			}
			continue
		case "allow", "deny":
		default:
			return nil, fmt.Errorf("form %d: unknown head %q", i, f.list[0].atom)
		}
		r := sbRuleT{allow: f.list[0].atom == "allow"}
		for _, x := range f.list[1:] {
			if x.isStr || x.isRe {
				return nil, fmt.Errorf("form %d: a bare string %s", i, x)
			}
			if !x.isLst {
				r.ops = append(r.ops, x.atom)
				continue
			}
			if err := checkFilter(x); err != nil {
				return nil, fmt.Errorf("form %d: %v", i, err)
			}
			r.filt = append(r.filt, x)
		}
		if len(r.ops) == 0 {
			return nil, fmt.Errorf("form %d: no operation", i)
		}
		out = append(out, r)
	}
	return out, nil
}

var knownFilters = map[string]bool{"literal": true, "subpath": true, "regex": true, "global-name": true,
	"target": true, "remote": true, "local": true, "ipc-posix-name": true}

var escapeOK = regexp.MustCompile(`\\[^.^$*+?()\[\]{}|]`)

func checkFilter(x sexp) error {
	if len(x.list) == 0 || !knownFilters[x.list[0].atom] {
		return fmt.Errorf("unknown filter %s", x)
	}
	switch x.list[0].atom {
	case "target":
		if len(x.list) != 2 || x.list[1].atom != "same-sandbox" {
			return fmt.Errorf("bad target %s", x)
		}
		return nil
	case "remote", "local":
		if len(x.list) == 3 && x.list[1].atom == "unix-socket" && x.list[2].isLst &&
			len(x.list[2].list) == 2 && x.list[2].list[0].atom == "path-literal" && x.list[2].list[1].isStr {
			return nil
		}
		if len(x.list) != 3 || !x.list[2].isStr || (x.list[1].atom != "tcp" && x.list[1].atom != "ip") {
			return fmt.Errorf("bad network filter %s", x)
		}
		return nil
	case "regex":
		if len(x.list) != 2 || !x.list[1].isRe {
			return fmt.Errorf("regex filter without one #\"…\": %s", x)
		}
		re := x.list[1].atom
		if strings.ContainsAny(re, "\"") || escapeOK.MatchString(re) || strings.HasSuffix(re, `\`) {
			return fmt.Errorf("regex %q escapes something that is not a metacharacter, or holds a quote", re)
		}
		if _, err := regexp.CompilePOSIX(re); err != nil {
			return fmt.Errorf("regex %q does not compile: %v", re, err)
		}
		if !strings.HasPrefix(re, "^") || !strings.HasSuffix(re, "$") {
			return fmt.Errorf("regex %q is not anchored at both ends", re)
		}
		return nil
	}
	if len(x.list) != 2 || !x.list[1].isStr {
		return fmt.Errorf("filter %s needs one string", x)
	}
	return nil
}

// decide evaluates an operation on a path: the last matching rule wins,
// as in Seatbelt; no match is the default (deny).
func decide(rules []sbRuleT, op, path string) bool {
	allow := false
	for _, r := range rules {
		if !opMatches(r.ops, op) {
			continue
		}
		if len(r.filt) == 0 {
			if len(r.ops) == 1 && r.ops[0] == "default" || op != "" {
				allow = r.allow
			}
			continue
		}
		for _, f := range r.filt {
			if filterMatches(f, path) {
				allow = r.allow
				break
			}
		}
	}
	return allow
}

func opMatches(ops []string, op string) bool {
	for _, o := range ops {
		if o == "default" || o == op || strings.HasSuffix(o, "*") && strings.HasPrefix(op, strings.TrimSuffix(o, "*")) {
			return true
		}
	}
	return false
}

func filterMatches(f sexp, path string) bool {
	arg := f.list[len(f.list)-1].atom
	switch f.list[0].atom {
	case "literal":
		return path == arg
	case "subpath":
		return path == arg || strings.HasPrefix(path, strings.TrimSuffix(arg, "/")+"/")
	case "regex":
		return regexp.MustCompilePOSIX(arg).MatchString(path)
	}
	return false
}
