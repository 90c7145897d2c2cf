//go:build linux

package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lnk.dev/sandbox/build/mcptest"
	"lnk.dev/sandbox/build/testenv"
)

// wantLines fails unless out holds each line, in order.
func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Fatalf("output:\n%s\nwant %d lines:\n%s", out, len(want), strings.Join(want, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i], w)
		}
	}
}

// An MCP client inside a real sandbox lists a tool that runs outside and
// calls it: an allowed call passes, an asked call is answered yes and no
// from the queue, --ask none passes, the server gets its own environment
// and never the sandbox's, and a tool the spec does not name is
// unreachable.
func TestToolsFromInsideASandbox(t *testing.T) {
	w := newWorld(t, true)
	srv, _ := mcpBins(t)
	cli := w.installClient(t)
	w.must("tool", "add", "gosrv", "--allow", "echo", "--env", "TOOL_SECRET=from-the-definition", "--", srv)
	w.must("tool", "add", "quiet", "--ask", "none", "--", srv)
	w.must("tool", "add", "hidden", "--ask", "none", "--", srv)
	spec := w.toolSpec("gosrv", "quiet")
	wa := w.watch(t, "allow", "deny", "allow", "allow")
	r := w.lnk("run", "--spec", spec, "--", cli, "gosrv", "list", `call:echo:{"text":"hi"}`,
		`call:wipe:{"path":"a"}`, `call:wipe:{"path":"b"}`, `call:env:{"name":"TOOL_SECRET"}`, `call:env:{"name":"LNK_SANDBOX"}`)
	if r.code != 0 {
		t.Fatalf("client: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantLines(t, r.stdout,
		"list ok: echo,env,pid,roots,sleep,wipe",
		"call echo ok: echo: hi",
		"call wipe ok: wiped a",
		"call wipe error: ",
		"call env ok: from-the-definition",
		"call env ok: <unset>",
	)
	if !strings.Contains(r.stdout, "was not allowed") {
		t.Errorf("the denied call does not say so:\n%s", r.stdout)
	}
	qs := wa.seen()
	if len(qs) != 4 {
		t.Fatalf("%d questions, want 4: %q", len(qs), qs)
	}
	for _, want := range []string{"gosrv wipe", "destructiveHint=true", "not trusted", `path = "a"`} {
		if !strings.Contains(qs[0], want) {
			t.Errorf("the first question lacks %q:\n%s", want, qs[0])
		}
	}

	r = w.lnk("run", "--spec", spec, "--", cli, "quiet", `call:wipe:{"path":"q"}`)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "call wipe ok: wiped q" {
		t.Fatalf("--ask none: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(wa.seen()); n != 4 {
		t.Fatalf("--ask none asked (%d questions)", n)
	}

	r = w.lnk("run", "--spec", spec, "--", cli, "hidden", "list")
	if r.code != 3 || !strings.Contains(r.stderr, "not in this sandbox's spec") {
		t.Fatalf("a tool the spec does not name: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	log := w.must("log", "--json")
	for _, want := range []string{`"proto":"tool"`, `"rule":"tools/call echo: --allow echo"`, `tools/call wipe: asked: deny via queue`, `"rule":"tool not in network.tools"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %s", want)
		}
	}
}

// Three sandboxes call one shared tool at once: one server runs, and it
// stops after shared_idle without calls.
func TestSharedToolAcrossSandboxes(t *testing.T) {
	w := newWorld(t, true)
	srv, _ := mcpBins(t)
	cli := w.installClient(t)
	pidFile := filepath.Join(w.root, "pids")
	w.must("tool", "add", "team", "--shared", "--allow", "echo,pid", "--env", mcptest.PidFileEnv+"="+pidFile, "--", srv)
	settings := filepath.Join(w.paths().Config, "tools.toml")
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, append([]byte("shared_idle = \"2s\"\n"), b...), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := w.toolSpec("team")
	var wg sync.WaitGroup
	outs := make([]result, 3)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = w.lnk("run", "--spec", spec, "--", cli, "team", "call:pid:{}", fmt.Sprintf(`call:echo:{"text":"box%d"}`, i))
		}()
	}
	wg.Wait()
	var pid string
	for i, r := range outs {
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.code != 0 || len(lines) != 2 || lines[1] != fmt.Sprintf("call echo ok: echo: box%d", i) {
			t.Fatalf("sandbox %d: exit %d\n%s\n%s", i, r.code, r.stdout, r.stderr)
		}
		p := strings.TrimPrefix(lines[0], "call pid ok: ")
		if pid == "" {
			pid = p
		} else if p != pid {
			t.Fatalf("servers %s and %s: want one", pid, p)
		}
	}
	pf, _ := os.ReadFile(pidFile)
	if got := strings.Fields(string(pf)); len(got) != 1 || got[0] != pid {
		t.Fatalf("servers started: %q, want just %s", got, pid)
	}
	n, _ := strconv.Atoi(pid)
	if !waitGone(n, 15*time.Second) {
		t.Fatalf("the shared server %d runs on after shared_idle", n)
	}
}

// The reference server from npm (server-everything, Node) works as a
// tool from inside a sandbox, each call asking.
func TestEverythingServerFromNpm(t *testing.T) {
	w := newWorld(t, true)
	node := testenv.NeedCommand(t, "node", "nodejs")
	script, err := filepath.Abs("../../build/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		testenv.Missing(t, "server-everything", "run build/test.sh, which installs it into build/mcp")
	}
	cli := w.installClient(t)
	w.must("tool", "add", "everything", "--allow", "echo", "--", node, script, "stdio")
	spec := w.toolSpec("everything")
	wa := w.watch(t, "deny", "allow")
	r := w.lnk("run", "--spec", spec, "--", cli, "everything", `call:echo:{"message":"hi"}`,
		`call:get-sum:{"a":2,"b":3}`, `call:get-sum:{"a":2,"b":3}`)
	if r.code != 0 {
		t.Fatalf("client: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantLines(t, r.stdout, "call echo ok: Echo: hi", "call get-sum error: ", "call get-sum ok: The sum of 2 and 3 is 5")
	if qs := wa.seen(); len(qs) != 2 || !strings.Contains(qs[0], "everything get-sum") || !strings.Contains(qs[0], "readOnlyHint=true") {
		t.Fatalf("questions: %q", qs)
	}
}

// A remote (Streamable HTTP) server is a tool through mcp-remote, and its
// token never appears inside the sandbox: not in its environment, not in
// any process's, not in any file it can read.
func TestRemoteToolTokenStaysOutside(t *testing.T) {
	w := newWorld(t, true)
	cli := w.installClient(t)
	raw := make([]byte, 16)
	rand.Read(raw)
	token := "tok-" + hex.EncodeToString(raw)
	var mu sync.Mutex
	authorized, refused := 0, 0
	mcpH := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcptest.NewServer("remote") }, nil)
	port := serveLoopback(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+token {
			refused++
			http.Error(rw, "no token", http.StatusUnauthorized)
			return
		}
		authorized++
		mu.Unlock()
		mcpH.ServeHTTP(rw, r)
		mu.Lock()
	}))
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	w.must("tool", "add", "remote", "--ask", "none", "--env", "TOKEN="+token, "--", lnkBin, "sandbox", "mcp-remote", url, "--header", "Authorization: Bearer ${TOKEN}")
	if out := w.must("tool", "show", "remote"); strings.Contains(out, token) {
		t.Fatalf("tool show prints the token:\n%s", out)
	}
	spec := w.toolSpec("remote")
	// The client, then everything the sandbox can read that could hold
	// the token, printed for the test to search outside.
	script := cli + ` remote list 'call:echo:{"text":"far"}' &&
echo ===DUMP=== && env &&
for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do cat "$f" 2>/dev/null; echo; done &&
find "$HOME" /tmp /run /etc /var/tmp "$PWD" -xdev -type f -size -2M -readable -exec cat {} + 2>/dev/null; true`
	r := w.lnk("run", "--spec", spec, "--", "sh", "-c", script)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	head, dump, ok := strings.Cut(r.stdout, "===DUMP===")
	if !ok {
		t.Fatalf("no dump:\n%s\n%s", r.stdout, r.stderr)
	}
	wantLines(t, head, "list ok: echo,env,pid,roots,sleep,wipe", "call echo ok: echo: far")
	if len(dump) < 1000 {
		t.Fatalf("the dump is too small to prove anything (%d bytes)", len(dump))
	}
	if strings.Contains(dump, token) || strings.Contains(r.stderr, token) {
		t.Fatal("the remote server's token is readable inside the sandbox")
	}
	mu.Lock()
	defer mu.Unlock()
	if authorized == 0 {
		t.Fatal("the remote server saw no request with the token")
	}
	if refused != 0 {
		t.Fatalf("%d requests came without the token", refused)
	}
}
