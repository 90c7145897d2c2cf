package tools

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"lnk.dev/sandbox/bridges"
	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
	"lnk.dev/sandbox/spec"
)

// Route is the route the bridge serves: http://lnk.sandbox/tools/NAME.
const Route = "tools"

// Upgrade is the protocol name of the upgraded connection.
const Upgrade = "lnk-mcp"

// ProtoTool is the Proto of the log lines the bridge writes.
const ProtoTool = "tool"

// Tool is one tool's definition, from the person's settings.
type Tool struct {
	// Name is the tool's name, as a spec's network.tools names it.
	Name string
	// Command is the server's program and arguments.
	Command []string
	// Env are the server's own variables (K=V), on top of a short base
	// of the daemon's (HOME, PATH, USER...). The sandbox's never reach it.
	Env []string
	// Allow names the server's tools whose calls never ask.
	Allow []string
	// AskNone: no call asks.
	AskNone bool
	// Shared: one server for every sandbox, under the hub.
	Shared bool
	// Idle is how long a shared server runs without calls (default five
	// minutes).
	Idle time.Duration
}

// Bridge serves the tools route. Set the exported fields before the
// first Register.
type Bridge struct {
	// Asker asks the person before calls.
	Asker *dialogs.Asker
	// Lookup returns the tool called name, read fresh from the settings
	// for each session; nil and no error when there is none.
	Lookup func(name string) (*Tool, error)
	// Logf logs the bridge's own events and the servers' stderr; nil is
	// silent.
	Logf func(format string, args ...any)
	// Debug puts each call's arguments in its log line.
	Debug bool
	// Grace is how long a server may take to exit once its stdin closes
	// (default two seconds).
	Grace time.Duration

	mu      sync.Mutex // guards hubs, retired and open
	hubs    map[string]*upstream
	retired []*upstream    // hubs of definitions since changed
	open    map[string]int // sessions open, by sandbox id
}

// MaxSessions bounds the sessions one sandbox may have open at once (each
// private one is a server process outside the sandbox).
const MaxSessions = 16

// MaxInflight bounds the requests of one session waiting at its server.
const MaxInflight = 256

// Register implements bridges.Bridge. The route is internal to the proxy
// (no endpoint gates it); the bridge checks each tool against the spec's
// network.tools itself.
func (b *Bridge) Register(sb *bridges.Sandbox) {
	sb.Proxy.Handle(Route, "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.serve(sb, w, r)
	}))
}

func (b *Bridge) logf(format string, args ...any) {
	if b.Logf != nil {
		b.Logf(format, args...)
	}
}

func (b *Bridge) grace() time.Duration {
	if b.Grace > 0 {
		return b.Grace
	}
	return 2 * time.Second
}

// serve checks the request and the tool, starts or finds the server and
// relays until either side ends.
func (b *Bridge) serve(sb *bridges.Sandbox, w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, "/"+Route+"/")
	if !ok || !spec.ValidToolName(name) {
		http.Error(w, "ask for http://lnk.sandbox/tools/NAME with a tool's name", http.StatusNotFound)
		return
	}
	deny := func(status int, rule, msg string) {
		sb.Log(proxy.Record{Time: time.Now(), Proto: ProtoTool, Host: name, Decision: proxy.Deny, Rule: rule})
		http.Error(w, msg, status)
	}
	if sb.Policy == nil || !sb.Policy.Network.AllowsTool(name) {
		deny(http.StatusForbidden, "tool not in network.tools",
			fmt.Sprintf("tool %s is not in this sandbox's spec: add it to [network] tools = [...]", name))
		return
	}
	if r.Method != http.MethodGet || !strings.EqualFold(r.Header.Get("Upgrade"), Upgrade) {
		http.Error(w, "connect with lnk sandbox tool connect "+name, http.StatusUpgradeRequired)
		return
	}
	var t *Tool
	var err error
	if b.Lookup != nil {
		t, err = b.Lookup(name)
	}
	if err != nil {
		// The details (which may quote the file) go to the daemon's log,
		// never into the sandbox.
		b.logf("tools: tool %s: %v", name, err)
		deny(http.StatusInternalServerError, "settings unreadable",
			"lnk's tool settings cannot be read: run lnk sandbox tool list outside the sandbox to see why")
		return
	}
	if t == nil {
		deny(http.StatusNotFound, "tool not defined",
			fmt.Sprintf("no tool %s is defined: add it outside the sandbox with lnk sandbox tool add %s -- COMMAND", name, name))
		return
	}
	if !b.openSession(sb.Who.ID) {
		deny(http.StatusTooManyRequests, "too many sessions",
			fmt.Sprintf("this sandbox has %d tool sessions open already: end one first", MaxSessions))
		return
	}
	defer b.closeSession(sb.Who.ID)
	var u *upstream
	if t.Shared {
		u = b.hub(t)
	} else {
		u = newUpstream(b, t, false)
		if err := u.startPrivate(); err != nil {
			b.logf("tools: %v", err)
			deny(http.StatusBadGateway, "server did not start", err.Error())
			return
		}
	}
	hc, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		if !t.Shared {
			u.shutdown()
		}
		http.Error(w, "cannot take the connection over", http.StatusInternalServerError)
		return
	}
	hc.SetDeadline(time.Time{})
	if _, err := hc.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: " + Upgrade + "\r\nConnection: Upgrade\r\n\r\n")); err != nil {
		hc.Close()
		if !t.Shared {
			u.shutdown()
		}
		return
	}
	s := newSession(u, sb, hc, brw.Reader)
	s.run()
}

// hub returns the shared upstream of t, made on first use. A tool whose
// definition changed gets a new hub; the old one serves its sessions and
// stops when idle.
func (b *Bridge) hub(t *Tool) *upstream {
	key := t.Name + "\x00" + strings.Join(t.Command, "\x00") + "\x00" + strings.Join(t.Env, "\x00")
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hubs == nil {
		b.hubs = map[string]*upstream{}
	}
	u := b.hubs[t.Name]
	if u == nil || u.key != key {
		if u != nil {
			b.retired = append(b.retired, u)
		}
		u = newUpstream(b, t, true)
		u.key = key
		b.hubs[t.Name] = u
	}
	u.mu.Lock()
	u.tool = t // --allow, --ask and shared_idle changes apply at once
	u.mu.Unlock()
	return u
}

// Close stops every shared server. Private servers stop with their
// sessions (and with the proxy that carries them).
func (b *Bridge) Close() {
	b.mu.Lock()
	hubs := b.retired
	for _, u := range b.hubs {
		hubs = append(hubs, u)
	}
	b.hubs, b.retired = nil, nil
	b.mu.Unlock()
	for _, u := range hubs {
		u.shutdown()
	}
}

// openSession counts a session of sandbox id, if it may have one more.
func (b *Bridge) openSession(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open == nil {
		b.open = map[string]int{}
	}
	if b.open[id] >= MaxSessions {
		return false
	}
	b.open[id]++
	return true
}

func (b *Bridge) closeSession(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open[id]--; b.open[id] <= 0 {
		delete(b.open, id)
	}
}
