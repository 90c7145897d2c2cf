package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
)

// maxArgLines bounds the arguments a question shows, one line each.
const maxArgLines = 16

// callParams reads a tools/call's params: the tool's name and arguments.
// It returns them re-encoded, so the server receives exactly the name and
// arguments the person was shown (one "name", no key the relay did not
// read), with numbers kept as written.
func callParams(raw json.RawMessage) (name string, args map[string]any, canon json.RawMessage, err error) {
	var p map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if raw == nil || d.Decode(&p) != nil || p == nil {
		return "", nil, nil, fmt.Errorf("tools/call needs params {\"name\": ..., \"arguments\": {...}}")
	}
	name, _ = p["name"].(string)
	if name == "" {
		return "", nil, nil, fmt.Errorf("tools/call needs the name of the tool to call")
	}
	switch a := p["arguments"].(type) {
	case nil:
	case map[string]any:
		args = a
	default:
		return "", nil, nil, fmt.Errorf("tools/call's arguments must be an object")
	}
	b, err := json.Marshal(p)
	if err != nil {
		return "", nil, nil, err
	}
	return name, args, b, nil
}

// decide says whether a call runs without asking, and why.
func decide(t *Tool, name string) (rule string, ask bool) {
	if t.AskNone {
		return "--ask none", false
	}
	for _, a := range t.Allow {
		if a == name {
			return "--allow " + name, false
		}
	}
	return "", true
}

// toolCall lets a tools/call through, asks the person first, or refuses
// it with a JSON-RPC error; the session goes on either way.
func (s *session) toolCall(m *message) {
	u := s.u
	name, args, canon, err := callParams(m.params)
	if err != nil {
		s.write(errorResponse(m.id, -32602, "lnk: "+err.Error(), nil))
		return
	}
	m.params = canon
	t := u.currentTool()
	var argText string
	if u.b.Debug {
		argText = dialogs.Elide(string(canon), 2000)
	}
	rule, ask := decide(t, name)
	if !ask {
		s.forward(m, name, rule, argText)
		return
	}
	key := string(m.id)
	ctx, cancel := context.WithCancel(s.ctx)
	s.amu.Lock()
	if _, dup := s.asks[key]; dup {
		s.amu.Unlock()
		cancel()
		s.write(errorResponse(m.id, codeInvalidRequest, "lnk: a call with this id is already waiting for an answer", nil))
		return
	}
	s.asks[key] = cancel
	s.amu.Unlock()
	s.wg.Add(1)
	hint := u.hint(ctx, name)
	q := dialogs.Question{
		Sandbox:    s.sb.Who,
		Bridge:     Route,
		Action:     "wants to call a tool",
		Subject:    t.Name + " " + name,
		Details:    append(argLines(args), "annotations: "+hint),
		Remember:   "tools " + t.Name + " " + name,
		Unattended: true,
		Hint: fmt.Sprintf("allow it without asking: lnk sandbox tool add %s --replace --allow %s ... (lnk sandbox tool show %s prints the whole command)",
			t.Name, name, t.Name),
	}
	go func() {
		defer s.wg.Done()
		defer cancel()
		start := time.Now()
		ans := u.b.Asker.Ask(ctx, q)
		s.amu.Lock()
		delete(s.asks, key)
		s.amu.Unlock()
		if ans.Allowed() {
			s.forward(m, name, "asked: "+string(ans.Choice)+" via "+ans.Via, argText)
			return
		}
		rec := proxy.Record{Time: start, Proto: ProtoTool, Host: t.Name, Decision: proxy.Deny,
			Rule: "tools/call " + name + ": asked: " + string(ans.Choice) + " via " + ans.Via, Error: ans.Reason,
			Duration: time.Since(start).Milliseconds()}
		if argText != "" {
			rec.Rule += " arguments " + argText
		}
		s.sb.Log(rec)
		if ans.Via == dialogs.ViaCancelled && s.ctx.Err() == nil {
			return // the client cancelled the call: MCP wants no answer
		}
		msg := fmt.Sprintf("lnk: the call to %s was not allowed (%s via %s)", name, ans.Choice, ans.Via)
		if ans.Reason != "" {
			msg += ": " + ans.Reason
		}
		s.write(errorResponse(m.id, codeDenied, msg, map[string]any{"tool": t.Name, "call": name, "via": ans.Via}))
	}()
}

// argLines shows a call's arguments, one line per key in key order, each
// value as compact JSON (the Asker cleans and elides each line).
func argLines(args map[string]any) []string {
	if len(args) == 0 {
		return []string{"arguments: none"}
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := []string{"arguments:"}
	for i, k := range keys {
		if i == maxArgLines {
			out = append(out, fmt.Sprintf("  ... and %d more", len(keys)-i))
			break
		}
		v, _ := json.Marshal(args[k])
		out = append(out, "  "+dialogs.Elide(k, 60)+" = "+dialogs.Elide(string(v), 400))
	}
	return out
}

// hint returns how the server annotates the called tool, as last seen in
// a tools/list answer; if none was seen, the bridge lists the server's
// tools itself first (bounded), so the person sees the server's word even
// when the client never asked for the list.
func (u *upstream) hint(ctx context.Context, name string) string {
	u.mu.Lock()
	h, seen := u.hints[name]
	u.mu.Unlock()
	if seen {
		return h
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, _, err := u.ready(ctx, ""); err != nil {
		return "unknown (" + err.Error() + ")"
	}
	var cursor string
	for range 8 {
		params := json.RawMessage("{}")
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		m, err := u.ownRequest(ctx, "tools/list", params)
		if err != nil || m.result == nil {
			break
		}
		var r struct {
			NextCursor string `json:"nextCursor"`
		}
		json.Unmarshal(m.result, &r)
		u.mu.Lock()
		h, seen = u.hints[name]
		u.mu.Unlock()
		if seen || r.NextCursor == "" {
			break
		}
		cursor = r.NextCursor
	}
	if seen {
		return h
	}
	return "unknown (the server does not list this tool)"
}
