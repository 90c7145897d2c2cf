package spec

import (
	"fmt"
	"path"
	"strings"
	"unicode"
)

// Endpoint names: lnk's own routes a spec may open in network.endpoints.
const (
	EndpointOpen  = "open"  // ask to open a page in the person's browser
	EndpointAsk   = "ask"   // ask the person a question
	EndpointOAuth = "oauth" // receive a login's localhost callback
)

// KnownEndpoints lists every endpoint name a spec may use.
var KnownEndpoints = []string{EndpointAsk, EndpointOAuth, EndpointOpen}

// ValidToolName reports whether s has the form of a tool's name, in specs
// and in `tool add`: 1 to 63 lower-case letters, digits, '-' and '_',
// starting with a letter or digit.
func ValidToolName(s string) bool {
	if s == "" || len(s) > 63 || s[0] == '-' || s[0] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// validCommandName reports whether s can be a program's name on PATH.
func validCommandName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._+-", c) >= 0) {
			return false
		}
	}
	return true
}

// maxPathLen bounds a path in a spec (PATH_MAX on Linux).
const maxPathLen = 4096

// validator checks the values of a decoded spec, collecting errors with
// their lines.
type validator struct {
	file string
	data []byte
	errs []*Error
}

func (v *validator) addf(key []string, index int, format string, args ...any) {
	line := keyLine(v.data, key)
	k := strings.Join(key, ".")
	if index >= 0 {
		line = elemLine(v.data, line, index)
		k = fmt.Sprintf("%s[%d]", k, index)
	}
	v.errs = append(v.errs, &Error{File: v.file, Line: line, Key: k, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) spec(s *Spec) {
	fs := s.Filesystem
	v.paths([]string{"filesystem", "deny_read"}, fs.DenyRead)
	v.paths([]string{"filesystem", "allow_read"}, fs.AllowRead)
	v.paths([]string{"filesystem", "allow_write"}, fs.AllowWrite)
	v.paths([]string{"filesystem", "deny_write"}, fs.DenyWrite)
	v.commands([]string{"commands", "allow"}, s.Commands.Allow)
	v.network(&s.Network)
}

// paths checks a list of filesystem paths.
func (v *validator) paths(key []string, list []string) {
	v.unique(key, list)
	for i, p := range list {
		if msg := checkPath(p); msg != "" {
			v.addf(key, i, "%s", msg)
		}
	}
}

// checkPath returns what is wrong with a path as written in a spec.
func checkPath(p string) string {
	switch {
	case p == "":
		return "empty path: use \".\" for the sandbox's folder"
	case len(p) > maxPathLen:
		return fmt.Sprintf("path is longer than %d bytes", maxPathLen)
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return fmt.Sprintf("path %q holds a control character", elide(p, 60))
	case strings.HasPrefix(p, "~") && p != "~" && !strings.HasPrefix(p, "~/"):
		return fmt.Sprintf("%q: only your own home can be named with ~ (write \"~/…\")", elide(p, 60))
	case strings.HasPrefix(p, "$") || strings.Contains(p, "${"):
		return fmt.Sprintf("%q: variables are not expanded in a spec: write the path", elide(p, 60))
	}
	if !hasGlob(p) {
		return ""
	}
	if msg := checkGlob(p); msg != "" {
		return fmt.Sprintf("%q: %s", elide(p, 60), msg)
	}
	return ""
}

// hasGlob reports whether p holds glob metacharacters.
func hasGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// checkGlob checks a glob path: "**" only as a whole component, every other
// component a valid path.Match pattern, and no glob in the first component
// of an absolute path (a glob must be anchored in a folder; relative globs
// are anchored at the sandbox's folder).
func checkGlob(p string) string {
	comps := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if strings.HasPrefix(p, "/") && hasGlob(comps[0]) {
		return "a glob may not stand in the first folder of an absolute path: anchor it in a folder"
	}
	for _, c := range comps {
		if strings.Contains(c, "**") && c != "**" {
			return "\"**\" must be a whole path component, as in \"src/**/*.key\""
		}
		if _, err := path.Match(c, ""); err != nil {
			return "not a valid glob: a '[' is not closed, or a '\\' ends a component"
		}
	}
	return ""
}

func (v *validator) commands(key []string, list []string) {
	v.unique(key, list)
	for i, c := range list {
		if !strings.ContainsRune(c, '/') && c != "." && c != "~" && c != ".." {
			if !validCommandName(c) {
				v.addf(key, i, "%q is neither a path nor a program name", elide(c, 60))
			}
			continue
		}
		if msg := checkPath(c); msg != "" {
			v.addf(key, i, "%s", msg)
		}
	}
}

func (v *validator) network(n *Network) {
	switch n.Mode {
	case "", ModeProxy, ModeHost:
	default:
		v.addf([]string{"network", "mode"}, -1, "%q is not a mode: use \"proxy\" (filtered, the default) or \"host\" (no filtering)", elide(n.Mode, 40))
	}
	key := []string{"network", "hosts"}
	v.unique(key, n.Hosts)
	for i, h := range n.Hosts {
		if _, err := ParseHostPattern(h); err != nil {
			v.addf(key, i, "%v", err)
		}
	}
	key = []string{"network", "deny"}
	v.unique(key, n.Deny)
	for i, h := range n.Deny {
		if _, err := ParseDenyPattern(h); err != nil {
			v.addf(key, i, "%v", err)
		}
	}
	key = []string{"network", "lan", "allow"}
	v.unique(key, n.LAN.Allow)
	for i, h := range n.LAN.Allow {
		if _, err := ParseLANRule(h); err != nil {
			v.addf(key, i, "%v", err)
		}
	}
	key = []string{"network", "endpoints"}
	v.unique(key, n.Endpoints)
	for i, e := range n.Endpoints {
		if !isKnownEndpoint(e) {
			v.addf(key, i, "%q is not an endpoint: the endpoints are %s", elide(e, 40), strings.Join(KnownEndpoints, ", "))
		}
	}
	key = []string{"network", "tools"}
	v.unique(key, n.Tools)
	for i, t := range n.Tools {
		if !ValidToolName(t) {
			v.addf(key, i, "%q is not a tool name: lower-case letters, digits, '-' and '_', starting with a letter or digit", elide(t, 40))
		}
	}
}

func isKnownEndpoint(e string) bool {
	for _, k := range KnownEndpoints {
		if e == k {
			return true
		}
	}
	return false
}

// unique reports entries listed twice: harmless, but usually a sign the
// person meant something else.
func (v *validator) unique(key []string, list []string) {
	seen := make(map[string]int, len(list))
	for i, s := range list {
		if j, ok := seen[s]; ok {
			v.addf(key, i, "%q is listed twice (first at [%d])", elide(s, 60), j)
			continue
		}
		seen[s] = i
	}
}
