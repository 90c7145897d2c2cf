package cli

import "strings"

// codeMatcher picks a terminal answer out of what the person types. While
// questions wait, typed bytes that could still become "CODE CHOICE" and
// Enter are held back from the sandbox; the moment they cannot, they go
// on to the sandbox unchanged. A complete answer is taken out of the
// stream: the sandbox never sees the code.
type codeMatcher struct {
	codes   map[string]string // code -> question id
	held    []byte
	midLine bool // bytes of an unfinished line went to the sandbox: an answer starts a line
}

// matchResult is what feeding one byte did.
type matchResult struct {
	pass   []byte // bytes for the sandbox, in order
	echo   []byte // bytes held back, to echo to the person
	id     string // a complete answer: the question
	choice string // and the choice typed
	bad    string // a complete line with the code but no valid choice
}

// maxChoice bounds the choice word.
const maxChoice = 8

func newCodeMatcher() *codeMatcher { return &codeMatcher{codes: map[string]string{}} }

func (m *codeMatcher) add(code, id string) { m.codes[strings.ToUpper(code)] = id }

// remove forgets a code; bytes held for it are released.
func (m *codeMatcher) remove(id string) matchResult {
	for c, q := range m.codes {
		if q == id {
			delete(m.codes, c)
		}
	}
	if len(m.held) > 0 && !m.viable(m.held) {
		r := matchResult{pass: m.held, echo: erase(len(m.held))}
		m.held = nil
		return r
	}
	return matchResult{}
}

// viable reports whether b may still become an answer.
func (m *codeMatcher) viable(b []byte) bool {
	n := len(b)
	head := strings.ToUpper(string(b[:min(n, codeLen)]))
	found := false
	for c := range m.codes {
		if strings.HasPrefix(c, head) {
			found = true
			break
		}
	}
	if !found {
		return false
	}
	if n <= codeLen {
		return true
	}
	if b[codeLen] != ' ' {
		return false
	}
	word := b[codeLen+1:]
	if len(word) > maxChoice {
		return false
	}
	for _, c := range word {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// feed takes one typed byte.
func (m *codeMatcher) feed(c byte) matchResult {
	r := m.feed1(c)
	if len(r.pass) > 0 {
		last := r.pass[len(r.pass)-1]
		m.midLine = last != '\r' && last != '\n'
	}
	return r
}

func (m *codeMatcher) feed1(c byte) matchResult {
	if len(m.codes) == 0 || (m.midLine && len(m.held) == 0) {
		return matchResult{pass: []byte{c}}
	}
	if (c == '\r' || c == '\n') && len(m.held) > codeLen+1 {
		id := m.codes[strings.ToUpper(string(m.held[:codeLen]))]
		word := strings.ToLower(string(m.held[codeLen+1:]))
		r := matchResult{echo: erase(len(m.held))}
		if id == "" {
			// A code's prefix was typed and the line ended: it was
			// not an answer, so the sandbox gets it.
			r.pass = append(m.held, c)
			m.held = nil
			return r
		}
		m.held = nil
		r.id = id
		switch word {
		case "allow", "always", "deny":
			r.choice = word
		default:
			r.bad = word
		}
		return r
	}
	if (c == 0x7f || c == 0x08) && len(m.held) > 0 {
		m.held = m.held[:len(m.held)-1]
		return matchResult{echo: []byte("\b \b")}
	}
	next := append(m.held, c)
	if m.viable(next) {
		m.held = next
		return matchResult{echo: []byte{c}}
	}
	r := matchResult{pass: next, echo: erase(len(m.held))}
	m.held = nil
	return r
}

// codeLen is the length of a question's code (the daemon's codes have 5
// characters).
const codeLen = 5

// erase is what takes n echoed characters off the screen again.
func erase(n int) []byte { return []byte(strings.Repeat("\b \b", n)) }
