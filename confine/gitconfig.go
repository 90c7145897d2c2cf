package confine

import (
	"bytes"
	"strings"
)

// safeGitKeys are the settings kept in the config of a repository the
// sandbox created: none of them runs a program. Section names are lower
// case; "*" stands for any subsection.
var safeGitKeys = map[string]map[string]bool{
	"core": {"repositoryformatversion": true, "filemode": true, "bare": true,
		"logallrefupdates": true, "ignorecase": true, "precomposeunicode": true, "symlinks": true},
	"extensions": {"objectformat": true},
	"remote *":   {"url": true, "fetch": true, "pushurl": true},
	"branch *":   {"remote": true, "merge": true},
}

// sanitizeGitConfig keeps only safeGitKeys of a git config file, in simple
// "key = value" lines. It returns the kept text and the names of what it
// dropped. Anything it does not understand is dropped.
func sanitizeGitConfig(in []byte) (out []byte, dropped []string) {
	var b bytes.Buffer
	section, header, raw0, written := "", "", "", false
	for _, raw := range strings.Split(string(in), "\n") {
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			section, header, raw0, written = parseSection(line), "", line, false
			if section != "" {
				header = line
			} else {
				dropped = append(dropped, "section "+quoteLine(line))
			}
			continue
		}
		key, value, ok := parseKey(line)
		keys := safeGitKeys[section]
		if !ok || keys == nil || !keys[key] {
			dropped = append(dropped, sectionName(raw0)+"."+keyName(line))
			continue
		}
		if !written {
			b.WriteString(header + "\n")
			written = true
		}
		b.WriteString("\t" + key + " = " + value + "\n")
	}
	return b.Bytes(), dropped
}

// parseSection returns "core", "remote *" and the like for a header it
// accepts, "" otherwise.
func parseSection(line string) string {
	if !strings.HasSuffix(line, "]") {
		return ""
	}
	inner := line[1 : len(line)-1]
	name, sub, hasSub := strings.Cut(inner, " ")
	name = strings.ToLower(name)
	if !hasSub {
		if _, ok := safeGitKeys[name]; ok && isWord(name) {
			return name
		}
		return ""
	}
	if len(sub) < 2 || sub[0] != '"' || sub[len(sub)-1] != '"' || strings.ContainsAny(sub[1:len(sub)-1], "\"\\\n") {
		return ""
	}
	if _, ok := safeGitKeys[name+" *"]; ok && isWord(name) {
		return name + " *"
	}
	return ""
}

// parseKey splits "key = value"; a value that continues on the next line
// or a key that is not a plain word is refused.
func parseKey(line string) (key, value string, ok bool) {
	k, v, hasValue := strings.Cut(line, "=")
	key = strings.ToLower(strings.TrimSpace(k))
	value = strings.TrimSpace(v)
	if !hasValue || !isWord(key) || strings.HasSuffix(value, "\\") || strings.ContainsAny(value, "\n\r") {
		return "", "", false
	}
	return key, value, true
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func sectionName(header string) string {
	if header == "" {
		return "(no section)"
	}
	return quoteLine(strings.Trim(header, "[]"))
}

func keyName(line string) string {
	k, _, _ := strings.Cut(line, "=")
	return quoteLine(strings.TrimSpace(k))
}

func quoteLine(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}
