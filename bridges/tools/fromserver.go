package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"lnk.dev/sandbox/proxy"
)

// readServer relays the server's messages until its stdout ends, then
// fails what waited on it.
func (u *upstream) readServer(p *process) {
	for {
		line, err := readLine(p.out, MaxLine)
		if errors.Is(err, errLineTooLong) {
			u.b.logf("tools: tool %s: its server sent a message over %d bytes: stopping it", p.name, MaxLine)
			go p.stop(0)
			break
		}
		if err != nil {
			break
		}
		m, err := parseMessage(line)
		if err != nil {
			u.b.logf("tools: tool %s: its server sent an unreadable message (%v): %s", p.name, err, clip(string(line), 200))
			continue
		}
		switch m.kind {
		case kindResponse:
			u.serverResponse(m)
		case kindRequest:
			u.serverRequest(p, m)
		case kindNotification:
			u.serverNotification(m)
		}
	}
	<-p.done
	u.serverExited(p)
}

// serverResponse routes an answer to the session that asked, with its own
// id, and logs the call.
func (u *upstream) serverResponse(m *message) {
	id, err := strconv.ParseInt(string(m.id), 10, 64)
	u.mu.Lock()
	c := u.calls[id]
	if err != nil || c == nil {
		u.mu.Unlock()
		return // an answer to a call whose session ended, or nonsense
	}
	delete(u.calls, id)
	if c.token != "" {
		delete(u.tokens, c.token)
	}
	if c.method == "tools/list" && m.result != nil {
		u.noteHintsLocked(m.result)
	}
	if c.counted {
		c.s.callDoneLocked()
	}
	u.mu.Unlock()
	if c.s == nil {
		c.reply <- m
		return
	}
	m.id = c.clientID
	rec := proxy.Record{Time: c.start, Proto: ProtoTool, Host: u.name, Decision: proxy.Allow,
		Rule: c.method, Duration: time.Since(c.start).Milliseconds()}
	if c.name != "" {
		rec.Rule += " " + c.name
	}
	if c.rule != "" {
		rec.Rule += ": " + c.rule
	}
	if c.args != "" {
		rec.Rule += " arguments " + c.args
	}
	if m.err != nil {
		rec.Error = "the server answered an error: " + clip(string(m.err), 200)
	} else if c.method == "tools/call" && bytes.Contains(m.result, []byte(`"isError":true`)) {
		rec.Error = "the tool reported an error"
	}
	c.s.sb.Log(rec) // first, so the line is there once the sandbox has its answer
	c.s.write(m)
}

// serverRequest passes a request of the server's (sampling, roots,
// elicitation, ping) to the session it belongs to. A shared server's pings
// are answered by the hub; a request no one session can be told to own is
// refused.
func (u *upstream) serverRequest(p *process, m *message) {
	if u.shared && m.method == "ping" {
		p.write((&message{id: m.id, result: json.RawMessage("{}")}).encode())
		return
	}
	u.mu.Lock()
	s := u.ownerLocked()
	if s == nil {
		u.mu.Unlock()
		p.write(errorResponse(m.id, codeInternal, "lnk: this server is shared by several sandboxes, so it cannot ask its client ("+clip(m.method, 60)+"): run it unshared", nil).encode())
		return
	}
	id := u.idLocked()
	u.back[id] = &backReq{s: s, proc: p, serverID: m.id}
	u.mu.Unlock()
	m.id = rawID(id)
	s.write(m)
}

// ownerLocked is the session a server's request belongs to: the only
// session, or else the only one with calls in flight.
func (u *upstream) ownerLocked() *session {
	if len(u.sessions) == 1 {
		for s := range u.sessions {
			return s
		}
	}
	var owner *session
	for _, c := range u.calls {
		if c.s == nil {
			continue
		}
		if owner != nil && owner != c.s {
			return nil
		}
		owner = c.s
	}
	return owner
}

// serverNotification passes a notification on: progress to the session
// whose token it names, a cancellation of the server's own request to the
// session that has it, anything else to every session.
func (u *upstream) serverNotification(m *message) {
	switch m.method {
	case "notifications/progress":
		if !u.shared {
			break
		}
		var p map[string]json.RawMessage
		if json.Unmarshal(m.params, &p) != nil {
			return
		}
		u.mu.Lock()
		tr := u.tokens[string(p["progressToken"])]
		u.mu.Unlock()
		if tr == nil {
			return
		}
		p["progressToken"] = tr.token
		m.params, _ = json.Marshal(p)
		tr.s.write(m)
		return
	case "notifications/cancelled":
		var p map[string]json.RawMessage
		if json.Unmarshal(m.params, &p) != nil {
			return
		}
		u.mu.Lock()
		var to *session
		for id, br := range u.back {
			if string(br.serverID) == string(p["requestId"]) {
				delete(u.back, id)
				to, p["requestId"] = br.s, rawID(id)
				break
			}
		}
		u.mu.Unlock()
		if to != nil {
			m.params, _ = json.Marshal(p)
			to.write(m)
		}
		return
	}
	for _, s := range u.sessionList() {
		s.write(m)
	}
}

// serverExited fails the calls that waited on p. A private server's
// session ends with it; a shared one starts again on the next request.
func (u *upstream) serverExited(p *process) {
	type failed struct {
		c  *call
		id json.RawMessage
	}
	var fails []failed
	u.mu.Lock()
	if u.proc == p {
		u.proc, u.initRes = nil, nil
	}
	for id, c := range u.calls {
		if c.proc == p {
			delete(u.calls, id)
			if c.counted {
				c.s.callDoneLocked()
			}
			fails = append(fails, failed{c, c.clientID})
		}
	}
	for id, br := range u.back {
		if br.proc == p {
			delete(u.back, id)
		}
	}
	u.mu.Unlock()
	msg := "the server of tool " + p.name + " exited"
	if p.err != nil {
		msg += " (" + p.err.Error() + ")"
	}
	for _, f := range fails {
		e := errorResponse(f.id, codeUnavailable, msg, nil)
		if f.c.s == nil {
			f.c.reply <- e
		} else {
			f.c.s.write(e)
		}
	}
	if !u.shared {
		for _, s := range u.sessionList() {
			s.close()
		}
	}
}

// noteHintsLocked keeps the annotations of the tools a tools/list result
// names, to show (never to trust) when a call asks.
func (u *upstream) noteHintsLocked(result json.RawMessage) {
	var r struct {
		Tools []struct {
			Name        string                     `json:"name"`
			Annotations map[string]json.RawMessage `json:"annotations"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	for _, t := range r.Tools {
		if len(u.hints) > 4096 {
			return
		}
		u.hints[t.Name] = hintText(t.Annotations)
	}
}

// hintText shows a tool's annotations.
func hintText(a map[string]json.RawMessage) string {
	var out string
	for _, k := range []string{"destructiveHint", "readOnlyHint", "idempotentHint", "openWorldHint"} {
		if v, ok := a[k]; ok {
			if out != "" {
				out += ", "
			}
			out += k + "=" + clip(string(v), 20)
		}
	}
	if out == "" {
		return "none given by the server"
	}
	return out + " (the server's own word: shown, not trusted)"
}
