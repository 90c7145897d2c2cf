//go:build unix

package tools

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lnk.dev/sandbox/bridges"
	"lnk.dev/sandbox/build/mcptest"
	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
	"lnk.dev/sandbox/spec"
)

// serverEnvVar makes the test binary the mcptest server (helper process).
const serverEnvVar = "LNK_TOOLS_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnvVar) != "" {
		if err := mcptest.ServeStdio(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// goTool is a tool whose server is this test binary as the mcptest
// server, with a pid file in dir.
func goTool(t testing.TB, name string) (*Tool, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := t.TempDir() + "/pids"
	return &Tool{Name: name, Command: []string{exe, "-test.run=^$"},
		Env: []string{serverEnvVar + "=1", mcptest.PidFileEnv + "=" + pidFile, "TOOL_SECRET=from-the-definition"}}, pidFile
}

// choose is a dialog that answers by a function of the question.
type choose struct {
	mu    sync.Mutex
	f     func(q *dialogs.Question) dialogs.Choice
	shown []dialogs.Question
}

func (c *choose) Available() error { return nil }

func (c *choose) Show(ctx context.Context, q *dialogs.Question) (dialogs.Choice, error) {
	c.mu.Lock()
	c.shown = append(c.shown, *q)
	f := c.f
	c.mu.Unlock()
	if f == nil {
		return dialogs.Deny, nil
	}
	return f(q), nil
}

func (c *choose) questions() []dialogs.Question {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]dialogs.Question(nil), c.shown...)
}

// world is a bridge and its tools, serving sandboxes.
type world struct {
	t      testing.TB
	bridge *Bridge
	mu     sync.Mutex // guards tools
	tools  map[string]*Tool
}

func newWorld(t testing.TB, dlg dialogs.Dialog, tools ...*Tool) *world {
	t.Helper()
	asker, err := dialogs.New(dialogs.Config{Dialog: dlg, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, tools: map[string]*Tool{}}
	for _, tl := range tools {
		w.tools[tl.Name] = tl
	}
	var lmu sync.Mutex
	over := false
	logf := func(format string, args ...any) {
		lmu.Lock()
		defer lmu.Unlock()
		if !over {
			t.Logf(format, args...)
		}
	}
	t.Cleanup(func() {
		w.bridge.Close()
		lmu.Lock()
		over = true
		lmu.Unlock()
	})
	w.bridge = &Bridge{Asker: asker, Logf: logf, Grace: time.Second, Lookup: func(name string) (*Tool, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.tools[name], nil
	}}
	return w
}

// box is one sandbox's proxy with the bridge registered.
type box struct {
	id, secret, addr string
	done             chan struct{}
	endOnce          sync.Once
	mu               sync.Mutex // guards recs
	recs             []proxy.Record
}

func (w *world) sandbox(id string, toolNames ...string) *box {
	t := w.t
	t.Helper()
	np := spec.NetworkPolicy{Mode: spec.ModeProxy, Tools: toolNames}
	b := &box{id: id, secret: "secret-" + id, done: make(chan struct{})}
	p, err := proxy.New(proxy.Config{SandboxID: id, Secret: b.secret, Network: np})
	if err != nil {
		t.Fatal(err)
	}
	w.bridge.Register(&bridges.Sandbox{
		Who:    dialogs.Sandbox{ID: id, Name: "box " + id, Scope: "spec-" + id},
		Policy: &spec.Policy{Network: np}, Proxy: p, Done: b.done,
		Log: func(r proxy.Record) {
			r.Sandbox = id
			b.mu.Lock()
			b.recs = append(b.recs, r)
			b.mu.Unlock()
		},
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(ln)
	b.addr = ln.Addr().String()
	t.Cleanup(func() {
		b.end()
		p.Close()
	})
	return b
}

// end ends the sandbox, as the daemon does when its command exits or it
// is stopped.
func (b *box) end() { b.endOnce.Do(func() { close(b.done) }) }

func (b *box) records() []proxy.Record {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]proxy.Record(nil), b.recs...)
}

// open sends the upgrade for tool name and returns the connection on
// 101, or the status and body.
func (b *box) open(t testing.TB, name string) (net.Conn, *bufio.Reader, int, string) {
	t.Helper()
	c, err := net.Dial("tcp", b.addr)
	if err != nil {
		t.Fatal(err)
	}
	auth := base64.StdEncoding.EncodeToString([]byte(b.id + ":" + b.secret))
	fmt.Fprintf(c, "GET http://lnk.sandbox/tools/%s HTTP/1.1\r\nHost: lnk.sandbox\r\nProxy-Authorization: Basic %s\r\nConnection: Upgrade\r\nUpgrade: lnk-mcp\r\n\r\n", name, auth)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		t.Fatalf("no answer to the upgrade: %v", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(resp.Body)
		c.Close()
		return nil, nil, resp.StatusCode, string(body)
	}
	return c, br, resp.StatusCode, ""
}

type readCloser struct {
	io.Reader
	io.Closer
}

// client connects the SDK's own client to tool name through the proxy.
func (b *box) client(t testing.TB, name string) *mcp.ClientSession {
	t.Helper()
	return b.clientWith(t, name, nil)
}

// clientWith is client with the client's options.
func (b *box) clientWith(t testing.TB, name string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c, br, code, body := b.open(t, name)
	if c == nil {
		t.Fatalf("tool %s: status %d: %s", name, code, body)
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "test-client-" + b.id, Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := cl.Connect(ctx, &mcp.IOTransport{Reader: readCloser{br, c}, Writer: c}, nil)
	if err != nil {
		t.Fatalf("connect to tool %s: %v", name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls tool name with args and returns the text of its result, or
// the error.
func callTool(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return strings.Join(out, "\n"), nil
}

// pids reads a pid file.
func pids(t testing.TB, file string) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []int
	for _, l := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(l)
		if err != nil {
			t.Fatalf("pid file: %q", l)
		}
		out = append(out, n)
	}
	return out
}

// alive reports whether pid runs (and is not a zombie).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// waitGone waits (bounded) for pid to exit.
func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
