package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"
)

// upstream is one server process and the sessions it serves: one session
// for a private server, every sandbox's for a shared one (the hub).
//
// Every request a session sends gets a new id, unique for the upstream,
// and the server's answer is routed back by it with the session's own id
// restored; the server's own requests get ids of the hub's as well, so a
// session's answer finds the server's request it belongs to. A shared
// upstream also initializes the server itself, once per process, answers
// each session's initialize from the server's result, and renumbers
// progress tokens so two sessions' tokens never meet.
type upstream struct {
	b      *Bridge
	name   string // the tool's name
	shared bool
	key    string // the hub's definition key (shared)

	mu       sync.Mutex // guards the fields below
	tool     *Tool
	proc     *process
	starting chan struct{}   // shared: closed when a start in progress ends
	initRes  json.RawMessage // shared: the server's initialize result for proc
	protoVer string          // shared: the protocol version the hub asks for
	nextID   int64
	calls    map[int64]*call        // requests to the server, by the id it saw
	back     map[int64]*backReq     // the server's requests, by the id the session saw
	tokens   map[string]*tokenRoute // shared: progress tokens, by the hub's
	sessions map[*session]struct{}
	hints    map[string]string // tool name -> its annotations as shown
	lastUse  time.Time
	armed    bool // shared: the idle timer runs
}

// call is a request sent to the server.
type call struct {
	s        *session // nil: the hub's own request
	proc     *process
	clientID json.RawMessage
	method   string
	name     string // the tool of a tools/call
	rule     string // why it was let through
	args     string // the arguments, for the debug log
	start    time.Time
	token    string        // the hub's progress token, if any
	reply    chan *message // the hub's own requests
	// counted: the call counts as in flight, for the session's drain and
	// the hub's idle time. A subscriptions/listen stream stays open as
	// long as the session and counts for neither.
	counted bool
}

// longLived names requests that stay open for a session's life.
func longLived(method string) bool { return method == "subscriptions/listen" }

// backReq is a request of the server's, passed to a session.
type backReq struct {
	s        *session
	proc     *process
	serverID json.RawMessage
}

// tokenRoute is where a renumbered progress token belongs.
type tokenRoute struct {
	s     *session
	token json.RawMessage
}

func newUpstream(b *Bridge, t *Tool, shared bool) *upstream {
	return &upstream{b: b, name: t.Name, tool: t, shared: shared, calls: map[int64]*call{}, back: map[int64]*backReq{},
		tokens: map[string]*tokenRoute{}, sessions: map[*session]struct{}{}, hints: map[string]string{}}
}

// currentTool is the tool's definition (a hub's may be updated).
func (u *upstream) currentTool() *Tool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.tool
}

// startPrivate starts a private server.
func (u *upstream) startPrivate() error {
	p, err := startProcess(u.currentTool(), u.b.logf)
	if err != nil {
		return err
	}
	u.mu.Lock()
	u.proc = p
	u.mu.Unlock()
	go u.readServer(p)
	return nil
}

// shutdown stops the server, if any.
func (u *upstream) shutdown() {
	u.mu.Lock()
	p := u.proc
	u.proc, u.initRes = nil, nil
	u.mu.Unlock()
	if p != nil {
		p.stop(u.b.grace())
	}
}

// idLocked returns a fresh id.
func (u *upstream) idLocked() int64 {
	u.nextID++
	return u.nextID
}

func rawID(n int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(n, 10)) }

// ready returns the running server, starting (and for a shared server,
// initializing) it if needed. protoVer is the version a session asked
// for, used when the hub initializes first.
func (u *upstream) ready(ctx context.Context, protoVer string) (*process, json.RawMessage, error) {
	for {
		u.mu.Lock()
		if u.proc != nil && (!u.shared || u.initRes != nil) {
			p, res := u.proc, u.initRes
			u.mu.Unlock()
			return p, res, nil
		}
		if !u.shared {
			u.mu.Unlock()
			return nil, nil, errors.New("the tool's server has exited")
		}
		if ch := u.starting; ch != nil {
			u.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		u.starting = ch
		if u.protoVer == "" {
			u.protoVer = protoVer
		}
		ver, t := u.protoVer, u.tool
		u.mu.Unlock()
		p, res, err := u.startShared(ctx, t, ver)
		u.mu.Lock()
		u.starting = nil
		if err == nil {
			u.proc, u.initRes = p, res
		}
		close(ch)
		u.mu.Unlock()
		if err != nil {
			return nil, nil, err
		}
		u.armIdle()
	}
}

// startShared starts a shared server and initializes it as the hub: a
// client with no capabilities (no roots, sampling or elicitation), since
// it serves many sandboxes at once.
func (u *upstream) startShared(ctx context.Context, t *Tool, ver string) (*process, json.RawMessage, error) {
	if ver == "" {
		ver = "2025-11-25" // the last version before server/discover
	}
	p, err := startProcess(t, u.b.logf)
	if err != nil {
		return nil, nil, err
	}
	go u.readServer(p)
	params, _ := json.Marshal(map[string]any{
		"protocolVersion": ver,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "lnk-hub", "version": "1"},
	})
	reply := make(chan *message, 1)
	u.mu.Lock()
	id := u.idLocked()
	u.calls[id] = &call{proc: p, method: "initialize", start: time.Now(), reply: reply}
	u.mu.Unlock()
	fail := func(msg string) (*process, json.RawMessage, error) {
		go p.stop(u.b.grace())
		return nil, nil, errors.New("tool " + t.Name + ": " + msg)
	}
	if err := p.write((&message{id: rawID(id), method: "initialize", params: params}).encode()); err != nil {
		return fail("its server closed its input before initializing")
	}
	var m *message
	select {
	case m = <-reply:
	case <-time.After(time.Minute):
		return fail("its server did not answer initialize within a minute")
	case <-ctx.Done():
		return fail("the session went away while the server started")
	}
	if m.err != nil || m.result == nil {
		return fail("its server refused initialize: " + clip(string(m.err), 300))
	}
	if err := p.write((&message{method: "notifications/initialized"}).encode()); err != nil {
		return fail("its server closed its input after initializing")
	}
	return p, m.result, nil
}

// attach adds a session.
func (u *upstream) attach(s *session) {
	u.mu.Lock()
	u.sessions[s] = struct{}{}
	u.mu.Unlock()
}

// detach removes a session: its calls still at the server are cancelled
// (shared) and the server's requests to it are answered with an error. A
// private server is stopped.
func (u *upstream) detach(s *session) {
	var cancels [][]byte
	var refusals []*backReq
	u.mu.Lock()
	delete(u.sessions, s)
	for id, c := range u.calls {
		if c.s == s {
			delete(u.calls, id)
			if u.shared {
				params, _ := json.Marshal(map[string]any{"requestId": id, "reason": "the sandbox's session ended"})
				cancels = append(cancels, (&message{method: "notifications/cancelled", params: params}).encode())
			}
		}
	}
	for id, br := range u.back {
		if br.s == s {
			delete(u.back, id)
			refusals = append(refusals, br)
		}
	}
	for k, tr := range u.tokens {
		if tr.s == s {
			delete(u.tokens, k)
		}
	}
	p := u.proc
	u.mu.Unlock()
	for _, br := range refusals {
		br.proc.write(errorResponse(br.serverID, codeInternal, "the client's session ended", nil).encode())
	}
	if p != nil {
		for _, c := range cancels {
			p.write(c)
		}
	}
	if !u.shared {
		u.shutdown()
	}
}

// sessionList returns the sessions.
func (u *upstream) sessionList() []*session {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]*session, 0, len(u.sessions))
	for s := range u.sessions {
		out = append(out, s)
	}
	return out
}

// armIdle starts the idle timer of a shared server.
func (u *upstream) armIdle() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.lastUse = time.Now()
	if !u.shared || u.armed {
		return
	}
	u.armed = true
	time.AfterFunc(u.idle(), u.checkIdle)
}

func (u *upstream) idle() time.Duration {
	if u.tool.Idle > 0 {
		return u.tool.Idle
	}
	return 5 * time.Minute
}

// checkIdle stops a shared server that had no call for its idle time and
// has none in flight; otherwise it looks again when the time may be up.
func (u *upstream) checkIdle() {
	u.mu.Lock()
	if u.proc == nil {
		u.armed = false
		u.mu.Unlock()
		return
	}
	idle := u.idle()
	busy := false
	for _, c := range u.calls {
		busy = busy || c.s == nil || c.counted
	}
	if left := idle - time.Since(u.lastUse); busy || left > 0 {
		if left < 50*time.Millisecond {
			left = 50 * time.Millisecond
		}
		time.AfterFunc(left, u.checkIdle)
		u.mu.Unlock()
		return
	}
	p := u.proc
	u.proc, u.initRes, u.armed = nil, nil, false
	u.mu.Unlock()
	u.b.logf("tools: shared tool %s: no call for %v: stopping its server (pid %d)", u.name, idle, p.cmd.Process.Pid)
	p.stop(u.b.grace())
}

// ownRequest sends a request of the bridge's own to the running server
// and waits for its answer.
func (u *upstream) ownRequest(ctx context.Context, method string, params json.RawMessage) (*message, error) {
	u.mu.Lock()
	p := u.proc
	if p == nil {
		u.mu.Unlock()
		return nil, errors.New("no server runs")
	}
	reply := make(chan *message, 1)
	id := u.idLocked()
	u.calls[id] = &call{proc: p, method: method, start: time.Now(), reply: reply}
	u.mu.Unlock()
	forget := func() {
		u.mu.Lock()
		delete(u.calls, id)
		u.mu.Unlock()
	}
	if err := p.write((&message{id: rawID(id), method: method, params: params}).encode()); err != nil {
		forget()
		return nil, err
	}
	select {
	case m := <-reply:
		return m, nil
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	}
}
