package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"sync"
	"time"

	"lnk.dev/sandbox/bridges"
)

// writeTimeout bounds one write to a session: a sandbox that stops
// reading loses its session rather than holding up a shared server.
const writeTimeout = 10 * time.Second

// drainTimeout is how long a session whose client closed its side still
// waits for answers to its calls.
const drainTimeout = 5 * time.Second

// session is one connection from a sandbox (one `tool connect`).
type session struct {
	u    *upstream
	sb   *bridges.Sandbox
	conn net.Conn
	br   *bufio.Reader
	ctx  context.Context
	stop context.CancelFunc

	wmu    sync.Mutex // guards writes to conn and closed
	closed bool

	amu  sync.Mutex // guards asks
	asks map[string]context.CancelFunc
	wg   sync.WaitGroup // asks in progress

	// Guarded by u.mu:
	inflight int           // calls at the server
	drained  chan struct{} // closed when inflight reaches 0 while draining
}

func newSession(u *upstream, sb *bridges.Sandbox, conn net.Conn, br *bufio.Reader) *session {
	ctx, stop := context.WithCancel(context.Background())
	return &session{u: u, sb: sb, conn: conn, br: br, ctx: ctx, stop: stop, asks: map[string]context.CancelFunc{}}
}

// run relays the session's messages until it or the sandbox ends.
func (s *session) run() {
	s.u.attach(s)
	go func() {
		select {
		case <-s.sb.Done:
			s.close()
		case <-s.ctx.Done():
		}
	}()
	for {
		line, err := readLine(s.br, MaxLine)
		if errors.Is(err, errLineTooLong) {
			s.write(errorResponse(nil, codeInvalidRequest, "a message is over the limit of 32 MiB: the session ends", nil))
			break
		}
		if err != nil {
			break
		}
		m, err := parseMessage(line)
		if err != nil {
			var pe *parseError
			if errors.As(err, &pe) {
				s.write(errorResponse(pe.id, pe.code, "lnk: "+pe.msg, nil))
			}
			continue
		}
		switch m.kind {
		case kindRequest:
			s.request(m)
		case kindNotification:
			s.notification(m)
		case kindResponse:
			s.u.sessionResponse(s, m)
		}
	}
	s.drain()
	s.stop()
	s.close() // the client need not wait for the server to stop
	s.u.detach(s)
}

// drain waits, bounded, for answers to calls already made and for asks in
// progress once the client has closed its side.
func (s *session) drain() {
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		s.u.mu.Lock()
		if s.inflight == 0 {
			s.u.mu.Unlock()
			close(done)
			return
		}
		ch := make(chan struct{})
		s.drained = ch
		s.u.mu.Unlock()
		<-ch
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(drainTimeout):
	}
}

// callDoneLocked notes an answered call (u.mu held).
func (s *session) callDoneLocked() {
	s.inflight--
	if s.inflight == 0 && s.drained != nil {
		close(s.drained)
		s.drained = nil
	}
}

// write sends one message to the sandbox.
func (s *session) write(m *message) {
	b := m.encode()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed {
		return
	}
	s.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := s.conn.Write(b); err != nil {
		s.closed = true
		s.conn.Close()
	}
}

// close ends the connection.
func (s *session) close() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if !s.closed {
		s.closed = true
		s.conn.Close()
	}
}

// request handles a request from the sandbox.
func (s *session) request(m *message) {
	switch {
	case m.method == "initialize" && s.u.shared:
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(m.params, &p)
		_, res, err := s.u.ready(s.ctx, clip(p.ProtocolVersion, 40))
		if err != nil {
			s.write(errorResponse(m.id, codeUnavailable, "lnk: "+err.Error(), nil))
			return
		}
		s.write(&message{id: m.id, result: res})
	case m.method == "ping" && s.u.shared:
		s.write(&message{id: m.id, result: json.RawMessage("{}")})
	case m.method == "tools/call":
		s.toolCall(m)
	default:
		s.forward(m, "", "", "")
	}
}

// forward sends a request of the sandbox's to the server under a new id.
func (s *session) forward(m *message, name, rule, args string) {
	u := s.u
	p, _, err := u.ready(s.ctx, "")
	if err != nil {
		s.write(errorResponse(m.id, codeUnavailable, "lnk: "+err.Error(), nil))
		return
	}
	c := &call{s: s, proc: p, clientID: m.id, method: m.method, name: name, rule: rule, args: args, start: time.Now(),
		counted: !longLived(m.method)}
	u.mu.Lock()
	if s.inflight >= MaxInflight {
		u.mu.Unlock()
		s.write(errorResponse(m.id, codeUnavailable, "lnk: too many requests wait at the tool's server: wait for answers first", nil))
		return
	}
	id := u.idLocked()
	if u.shared {
		if tok, params, ok := renumberToken(m.params, id); ok {
			c.token = tok
			u.tokens[tok] = &tokenRoute{s: s, token: progressToken(m.params)}
			m.params = params
		}
	}
	u.calls[id] = c
	if c.counted {
		s.inflight++
	}
	u.lastUse = time.Now()
	u.mu.Unlock()
	out := *m
	out.id = rawID(id)
	if err := p.write(out.encode()); err != nil {
		u.mu.Lock()
		if u.calls[id] == c {
			delete(u.calls, id)
			if c.counted {
				s.callDoneLocked()
			}
		}
		u.mu.Unlock()
		s.write(errorResponse(m.id, codeUnavailable, "lnk: the tool's server is not taking requests", nil))
		return
	}
	u.armIdle()
}

// notification handles a notification from the sandbox.
func (s *session) notification(m *message) {
	u := s.u
	switch m.method {
	case "notifications/initialized":
		if u.shared {
			return // the hub said it once for every session
		}
	case "notifications/cancelled":
		var p map[string]json.RawMessage
		if json.Unmarshal(m.params, &p) != nil {
			return
		}
		key := string(p["requestId"])
		s.amu.Lock()
		cancel := s.asks[key]
		s.amu.Unlock()
		if cancel != nil {
			cancel() // the call was still being asked about
			return
		}
		u.mu.Lock()
		found := false
		for id, c := range u.calls {
			if c.s == s && string(c.clientID) == key {
				p["requestId"] = rawID(id)
				found = true
				break
			}
		}
		u.mu.Unlock()
		if !found {
			return
		}
		m.params, _ = json.Marshal(p)
	}
	u.mu.Lock()
	p := u.proc
	u.mu.Unlock()
	if p != nil {
		p.write(m.encode())
	}
}

// sessionResponse passes the sandbox's answer to a request of the
// server's back with the server's own id.
func (u *upstream) sessionResponse(s *session, m *message) {
	id, err := strconv.ParseInt(string(m.id), 10, 64)
	u.mu.Lock()
	br := u.back[id]
	if err != nil || br == nil || br.s != s {
		u.mu.Unlock()
		return // not a request this session was sent
	}
	delete(u.back, id)
	u.mu.Unlock()
	m.id = br.serverID
	br.proc.write(m.encode())
}

// progressToken returns params._meta.progressToken, or nil.
func progressToken(params json.RawMessage) json.RawMessage {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta == nil {
		return nil
	}
	return p.Meta["progressToken"]
}

// renumberToken replaces params._meta.progressToken with one of the hub's
// ("lnk-" and the call's id) and returns it and the new params.
func renumberToken(params json.RawMessage, id int64) (string, json.RawMessage, bool) {
	if progressToken(params) == nil {
		return "", nil, false
	}
	var p map[string]json.RawMessage
	var meta map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p["_meta"], &meta) != nil {
		return "", nil, false
	}
	tok := `"lnk-` + strconv.FormatInt(id, 10) + `"`
	meta["progressToken"] = json.RawMessage(tok)
	p["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(p)
	if err != nil {
		return "", nil, false
	}
	return tok, out, true
}
