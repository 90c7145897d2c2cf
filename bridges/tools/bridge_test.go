//go:build unix

package tools

import (
	"errors"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
)

func toolNames(t *testing.T, w *box, name string) []string {
	t.Helper()
	cs := w.client(t, name)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func TestListsAndCallsAllowed(t *testing.T) {
	tl, _ := goTool(t, "gosrv")
	tl.Allow = []string{"echo"}
	dlg := &choose{}
	w := newWorld(t, dlg, tl)
	sb := w.sandbox("sb1", "gosrv")
	if got, want := toolNames(t, sb, "gosrv"), []string{"echo", "env", "pid", "roots", "sleep", "wipe"}; !slices.Equal(got, want) {
		t.Fatalf("tools/list = %v, want %v", got, want)
	}
	cs := sb.client(t, "gosrv")
	out, err := callTool(t, cs, "echo", map[string]any{"text": "hi"})
	if err != nil || out != "echo: hi" {
		t.Fatalf("echo = %q, %v", out, err)
	}
	if q := dlg.questions(); len(q) != 0 {
		t.Fatalf("an allowed call asked: %+v", q)
	}
	var found bool
	for _, r := range sb.records() {
		if r.Proto == ProtoTool && r.Rule == "tools/call echo: --allow echo" && r.Decision == proxy.Allow && r.Sandbox == "sb1" && r.Host == "gosrv" {
			found = true
		}
		if strings.Contains(r.Rule, "hi") {
			t.Errorf("arguments logged without Debug: %+v", r)
		}
	}
	if !found {
		t.Fatalf("no log line for the call: %+v", sb.records())
	}
}

func TestAskedCallYesThenNo(t *testing.T) {
	tl, _ := goTool(t, "gosrv")
	answers := []dialogs.Choice{dialogs.AllowOnce, dialogs.Deny}
	dlg := &choose{f: func(q *dialogs.Question) dialogs.Choice {
		if len(answers) == 0 {
			return dialogs.Deny
		}
		c := answers[0]
		answers = answers[1:]
		return c
	}}
	w := newWorld(t, dlg, tl)
	sb := w.sandbox("sb1", "gosrv")
	cs := sb.client(t, "gosrv")
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	out, err := callTool(t, cs, "wipe", map[string]any{"path": "/home/me/x"})
	if err != nil || out != "wiped /home/me/x" {
		t.Fatalf("allowed wipe = %q, %v", out, err)
	}
	_, err = callTool(t, cs, "wipe", map[string]any{"path": "/home/me/y"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != codeDenied || !strings.Contains(we.Message, "not allowed") {
		t.Fatalf("denied wipe: err = %v, want a JSON-RPC error %d", err, codeDenied)
	}
	// The session goes on.
	if _, err := callTool(t, cs, "pid", nil); err == nil {
		t.Fatal("a third call was not asked: the script is empty, so it must be denied")
	}
	qs := dlg.questions()
	if len(qs) != 3 {
		t.Fatalf("%d questions, want 3", len(qs))
	}
	q := qs[0]
	details := strings.Join(q.Details, "\n")
	for _, want := range []string{`path = "/home/me/x"`, "destructiveHint=true", "not trusted"} {
		if !strings.Contains(details, want) {
			t.Errorf("question details lack %q:\n%s", want, details)
		}
	}
	if q.Subject != "gosrv wipe" || q.Remember != "tools gosrv wipe" || !q.Unattended || !strings.Contains(q.Hint, "--allow wipe") {
		t.Errorf("question = %+v", q)
	}
	var deny bool
	for _, r := range sb.records() {
		if r.Proto == ProtoTool && r.Decision == proxy.Deny && strings.HasPrefix(r.Rule, "tools/call wipe: asked: deny") {
			deny = true
		}
	}
	if !deny {
		t.Fatalf("no deny line: %+v", sb.records())
	}
}

func TestAskNone(t *testing.T) {
	tl, _ := goTool(t, "gosrv")
	tl.AskNone = true
	dlg := &choose{}
	w := newWorld(t, dlg, tl)
	cs := w.sandbox("sb1", "gosrv").client(t, "gosrv")
	if out, err := callTool(t, cs, "wipe", map[string]any{"path": "p"}); err != nil || out != "wiped p" {
		t.Fatalf("wipe = %q, %v", out, err)
	}
	if len(dlg.questions()) != 0 {
		t.Fatal("--ask none asked")
	}
}

func TestNobodyToAskRefusesAtOnce(t *testing.T) {
	tl, _ := goTool(t, "gosrv")
	w := newWorld(t, &dialogs.Fake{Unavailable: errors.New("no display")}, tl)
	cs := w.sandbox("sb1", "gosrv").client(t, "gosrv")
	start := time.Now()
	_, err := callTool(t, cs, "wipe", map[string]any{"path": "p"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != codeDenied || !strings.Contains(we.Message, "--allow") {
		t.Fatalf("err = %v, want a refusal naming --allow", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the refusal took %v", d)
	}
}

func TestUnreachableTools(t *testing.T) {
	tl, _ := goTool(t, "gosrv")
	w := newWorld(t, &choose{}, tl)
	sb := w.sandbox("sb1", "other")
	if _, _, code, body := sb.open(t, "gosrv"); code != http.StatusForbidden || !strings.Contains(body, "network") {
		t.Fatalf("a tool the spec does not name: %d %q", code, body)
	}
	if _, _, code, body := sb.open(t, "other"); code != http.StatusNotFound || !strings.Contains(body, "tool add") {
		t.Fatalf("a tool not defined: %d %q", code, body)
	}
	if _, _, code, _ := sb.open(t, "Bad..name"); code != http.StatusNotFound {
		t.Fatalf("a bad name: %d", code)
	}
	var denied int
	for _, r := range sb.records() {
		if r.Proto == ProtoTool && r.Decision == proxy.Deny {
			denied++
		}
	}
	if denied != 2 {
		t.Fatalf("%d deny lines, want 2: %+v", denied, sb.records())
	}
}

func TestServerEnvIsTheDefinitions(t *testing.T) {
	tl, _ := goTool(t, "gosrv")
	tl.AskNone = true
	t.Setenv("LNK_DAEMON_ONLY", "daemon-secret")
	w := newWorld(t, &choose{}, tl)
	cs := w.sandbox("sb1", "gosrv").client(t, "gosrv")
	for name, want := range map[string]string{
		"TOOL_SECRET":     "from-the-definition",
		"LNK_DAEMON_ONLY": "<unset>",
		"HOME":            os.Getenv("HOME"),
	} {
		if got, err := callTool(t, cs, "env", map[string]any{"name": name}); err != nil || got != want {
			t.Errorf("env %s = %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestSessionEndStopsItsServer(t *testing.T) {
	tl, pidFile := goTool(t, "gosrv")
	tl.AskNone = true
	w := newWorld(t, &choose{}, tl)
	sb := w.sandbox("sb1", "gosrv")
	cs := sb.client(t, "gosrv")
	if _, err := callTool(t, cs, "pid", nil); err != nil {
		t.Fatal(err)
	}
	cs2 := sb.client(t, "gosrv")
	if _, err := callTool(t, cs2, "pid", nil); err != nil {
		t.Fatal(err)
	}
	ps := pids(t, pidFile)
	if len(ps) != 2 {
		t.Fatalf("%d servers for two sessions, want 2", len(ps))
	}
	cs.Close()
	if !waitGone(ps[0], 10*time.Second) {
		t.Fatalf("server %d runs on after its session ended", ps[0])
	}
	if !alive(ps[1]) {
		t.Fatal("the other session's server stopped")
	}
}

func TestSessionsPerSandboxAreBounded(t *testing.T) {
	tl, pidFile := goTool(t, "hub")
	tl.Shared = true // sessions that send nothing start no server
	w := newWorld(t, &choose{}, tl)
	sb := w.sandbox("sb1", "hub")
	var conns []net.Conn
	for range MaxSessions {
		c, _, code, body := sb.open(t, "hub")
		if c == nil {
			t.Fatalf("session %d: %d %s", len(conns), code, body)
		}
		conns = append(conns, c)
	}
	if _, _, code, _ := sb.open(t, "hub"); code != http.StatusTooManyRequests {
		t.Fatalf("one session too many: %d", code)
	}
	if c, _, _, _ := w.sandbox("sb2", "hub").open(t, "hub"); c == nil {
		t.Fatal("another sandbox was refused")
	} else {
		c.Close()
	}
	conns[0].Close()
	var c net.Conn
	for range 100 {
		if c, _, _, _ = sb.open(t, "hub"); c != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if c == nil {
		t.Fatal("a session ended, but a new one is still refused")
	}
	c.Close()
	for _, c := range conns[1:] {
		c.Close()
	}
	if n := len(pids(t, pidFile)); n != 0 {
		t.Fatalf("%d servers started for sessions that sent nothing", n)
	}
}

// A server's own request (roots/list) reaches its session's client and
// the answer finds its way back; a shared server, which serves many
// sandboxes, is refused one it cannot place.
func TestServerRequestsToTheClient(t *testing.T) {
	tl, _ := goTool(t, "gosrv")
	tl.AskNone = true
	hub, _ := goTool(t, "hub")
	hub.AskNone, hub.Shared = true, true
	w := newWorld(t, &choose{}, tl, hub)
	sb := w.sandbox("sb1", "gosrv", "hub")
	opts := &mcp.ClientOptions{}
	c, br, code, body := sb.open(t, "gosrv")
	if c == nil {
		t.Fatalf("%d %s", code, body)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "rooted", Version: "1"}, opts)
	//lint:ignore SA1019 roots is how a server asks its client before 2026-07-28, which servers still speak
	client.AddRoots(&mcp.Root{URI: "file:///home/me/project", Name: "project"})
	// Before 2026-07-28 a server may ask its client while serving a call.
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: readCloser{br, c}, Writer: c}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if out, err := callTool(t, cs, "roots", nil); err != nil || out != "file:///home/me/project" {
		t.Fatalf("roots through a private session = %q, %v", out, err)
	}
	hs := sb.client(t, "hub")
	res, err := hs.CallTool(t.Context(), &mcp.CallToolParams{Name: "roots"})
	if err == nil && !res.IsError {
		t.Fatalf("a shared server listed a client's roots: %+v", res.Content)
	}
}

// A call from a client that never listed the tools still shows the
// server's annotations: the bridge lists them itself first.
func TestHintsWithoutAList(t *testing.T) {
	tl, _ := goTool(t, "gosrv")
	dlg := &choose{f: func(*dialogs.Question) dialogs.Choice { return dialogs.AllowOnce }}
	w := newWorld(t, dlg, tl)
	cs := w.sandbox("sb1", "gosrv").client(t, "gosrv")
	if out, err := callTool(t, cs, "wipe", map[string]any{"path": "p"}); err != nil || out != "wiped p" {
		t.Fatalf("wipe = %q, %v", out, err)
	}
	qs := dlg.questions()
	if len(qs) != 1 || !strings.Contains(strings.Join(qs[0].Details, "\n"), "destructiveHint=true") {
		t.Fatalf("questions: %+v", qs)
	}
}

// A settings file that cannot be read is not quoted into the sandbox: a
// parse error may hold a line of it, token and all.
func TestUnreadableSettingsStayOutside(t *testing.T) {
	w := newWorld(t, &choose{})
	w.bridge.Lookup = func(string) (*Tool, error) {
		return nil, errors.New(`tools.toml: line 3: env = {TOKEN = "secret-in-the-file`)
	}
	_, _, code, body := w.sandbox("sb1", "gosrv").open(t, "gosrv")
	if code != http.StatusInternalServerError || strings.Contains(body, "secret") || !strings.Contains(body, "tool list") {
		t.Fatalf("%d %q", code, body)
	}
}

func TestDebugLogsArguments(t *testing.T) {
	tl, _ := goTool(t, "gosrv")
	tl.AskNone = true
	w := newWorld(t, &choose{})
	w.tools["gosrv"] = tl
	w.bridge.Debug = true
	sb := w.sandbox("sb1", "gosrv")
	if _, err := callTool(t, sb.client(t, "gosrv"), "echo", map[string]any{"text": "visible-in-debug"}); err != nil {
		t.Fatal(err)
	}
	for _, r := range sb.records() {
		if strings.Contains(r.Rule, "tools/call echo: --ask none arguments ") && strings.Contains(r.Rule, "visible-in-debug") {
			return
		}
	}
	t.Fatalf("no arguments in the debug log: %+v", sb.records())
}

// When the sandbox ends, its sessions end and their servers stop.
func TestSandboxEndStopsItsServers(t *testing.T) {
	tl, pidFile := goTool(t, "gosrv")
	tl.AskNone = true
	w := newWorld(t, &choose{})
	w.tools["gosrv"] = tl
	sb := w.sandbox("sb1", "gosrv")
	cs := sb.client(t, "gosrv")
	if _, err := callTool(t, cs, "pid", nil); err != nil {
		t.Fatal(err)
	}
	ps := pids(t, pidFile)
	if len(ps) != 1 {
		t.Fatalf("%d servers", len(ps))
	}
	sb.end()
	if !waitGone(ps[0], 10*time.Second) {
		t.Fatalf("server %d runs on after its sandbox ended", ps[0])
	}
	if _, err := callTool(t, cs, "pid", nil); err == nil {
		t.Fatal("a call went through after the sandbox ended")
	}
}
