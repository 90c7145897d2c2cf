package open

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"lnk.dev/sandbox/bridges"
	"lnk.dev/sandbox/bridges/oauth"
	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
	"lnk.dev/sandbox/spec"
)

// world is one sandbox's proxy with the open bridge on it, a scripted
// person, and a browser that records what it was asked to open.
type world struct {
	t      *testing.T
	fake   *dialogs.Fake
	client *http.Client
	done   chan struct{}

	mu     sync.Mutex
	opened []string
	logs   []proxy.Record
}

type worldOpts struct {
	endpoints []string
	answers   []dialogs.Choice
	openErr   error
	dial      func(ctx context.Context, host string, port int) (net.Conn, error)
}

func newWorld(t *testing.T, o worldOpts) *world {
	t.Helper()
	w := &world{t: t, fake: dialogs.NewFake(o.answers...), done: make(chan struct{})}
	asker, err := dialogs.New(dialogs.Config{Dialog: w.fake, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	np := spec.NetworkPolicy{Mode: spec.ModeProxy, Endpoints: o.endpoints}
	p, err := proxy.New(proxy.Config{SandboxID: "sb1", Secret: "s3cret", Network: np})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(l)
	t.Cleanup(func() { close(w.done); p.Close() })
	b := &Bridge{
		Asker: asker,
		Open: func(ctx context.Context, u string) error {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.opened = append(w.opened, u)
			return o.openErr
		},
		Relays: &oauth.Relays{Wait: 10 * time.Second},
	}
	b.Register(&bridges.Sandbox{
		Who:    dialogs.Sandbox{ID: "sb1", Name: "tool", Scope: "spec\x00folder"},
		Policy: &spec.Policy{Network: np}, Proxy: p, Done: w.done, DialInside: o.dial,
		Log: func(r proxy.Record) {
			w.mu.Lock()
			w.logs = append(w.logs, r)
			w.mu.Unlock()
		},
	})
	pu := &url.URL{Scheme: "http", User: url.UserPassword("sb1", "s3cret"), Host: l.Addr().String()}
	w.client = &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 30 * time.Second}
	return w
}

// open asks the bridge to open page, as the opener inside does.
func (w *world) open(page string) (int, *Response) {
	w.t.Helper()
	body, _ := json.Marshal(Request{URL: page})
	resp, err := w.client.Post("http://lnk.sandbox/open", "application/json", bytes.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var r Response
	if err := json.Unmarshal(data, &r); err != nil {
		return resp.StatusCode, &Response{Message: string(data)}
	}
	return resp.StatusCode, &r
}

func (w *world) openedPages() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.opened...)
}

func (w *world) logText() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for _, r := range w.logs {
		fmt.Fprintf(&b, "%s %s %s %s %s\n", r.Proto, r.Decision, r.Host, r.Rule, r.Error)
	}
	return b.String()
}

var openOnly = []string{spec.EndpointOpen}

func TestOpenAsksAndOpens(t *testing.T) {
	w := newWorld(t, worldOpts{endpoints: openOnly, answers: []dialogs.Choice{dialogs.AllowOnce}})
	code, r := w.open("https://Example.COM/docs?q=ü")
	if code != 200 || r.Outcome != Opened || r.URL != "https://example.com/docs?q=%C3%BC" {
		t.Fatalf("got %d %+v", code, r)
	}
	if got := w.openedPages(); len(got) != 1 || got[0] != r.URL {
		t.Fatalf("opened %q, want %q", got, r.URL)
	}
	shown := w.fake.Shown()
	if len(shown) != 1 {
		t.Fatalf("%d questions shown", len(shown))
	}
	q := shown[0]
	if q.Subject != r.URL || q.Bridge != "open" || q.OffersAlways() || q.Sandbox.ID != "sb1" {
		t.Errorf("question %+v", q)
	}
	if !strings.Contains(strings.Join(q.Details, "\n"), "site: example.com") {
		t.Errorf("details %q", q.Details)
	}
	if log := w.logText(); !strings.Contains(log, "open allow example.com open: opened via dialog") {
		t.Errorf("log:\n%s", log)
	}
}

func TestOpenDenied(t *testing.T) {
	w := newWorld(t, worldOpts{endpoints: openOnly, answers: []dialogs.Choice{dialogs.Deny}})
	code, r := w.open("https://example.com/")
	if code != http.StatusForbidden || r.Outcome != Denied {
		t.Fatalf("got %d %+v", code, r)
	}
	if got := w.openedPages(); len(got) != 0 {
		t.Fatalf("opened %q after a no", got)
	}
}

func TestOpenRefusesUnasked(t *testing.T) {
	w := newWorld(t, worldOpts{endpoints: openOnly, answers: []dialogs.Choice{dialogs.AllowOnce}})
	for _, page := range []string{"file:///etc/passwd", "javascript:alert(1)", "data:text/html,x", "myapp://x", "not a url"} {
		code, r := w.open(page)
		if code != http.StatusBadRequest || r.Outcome != Refused || !strings.Contains(r.Message, "lnk refused to open the page") {
			t.Errorf("%s: got %d %+v", page, code, r)
		}
	}
	if n := len(w.fake.Shown()); n != 0 {
		t.Errorf("%d questions shown for refused pages", n)
	}
	if got := w.openedPages(); len(got) != 0 {
		t.Errorf("opened %q", got)
	}
	if log := w.logText(); strings.Count(log, "open deny") != 5 {
		t.Errorf("log:\n%s", log)
	}
}

func TestOpenNeedsTheEndpoint(t *testing.T) {
	w := newWorld(t, worldOpts{answers: []dialogs.Choice{dialogs.AllowOnce}})
	code, _ := w.open("https://example.com/")
	if code != http.StatusForbidden || len(w.fake.Shown()) != 0 {
		t.Fatalf("a sandbox without the open endpoint got %d", code)
	}
}

func TestOpenBrowserFails(t *testing.T) {
	w := newWorld(t, worldOpts{endpoints: openOnly, answers: []dialogs.Choice{dialogs.AllowOnce}, openErr: errors.New("xdg-open: exit status 3")})
	code, r := w.open("https://example.com/")
	if code != http.StatusBadGateway || r.Outcome != Failed || !strings.Contains(r.Message, "exit status 3") {
		t.Fatalf("got %d %+v", code, r)
	}
}

// login is a login program's callback server standing in for the one
// inside the sandbox, reached through the world's DialInside.
func login(t *testing.T) (dial func(ctx context.Context, host string, port int) (net.Conn, error), codes chan string) {
	codes = make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		codes <- r.URL.Query().Get("code")
		io.WriteString(w, "you may close this page")
	}))
	t.Cleanup(srv.Close)
	return func(ctx context.Context, host string, port int) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", srv.Listener.Addr().String())
	}, codes
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func authURL(port int) string {
	return "https://accounts.example/auth?client_id=c&redirect_uri=" +
		url.QueryEscape(fmt.Sprintf("http://localhost:%d/callback", port)) + "&state=st"
}

func TestOpenPassesTheCallback(t *testing.T) {
	dial, codes := login(t)
	w := newWorld(t, worldOpts{endpoints: []string{"open", "oauth"}, answers: []dialogs.Choice{dialogs.AllowOnce}, dial: dial})
	port := freePort(t)
	code, r := w.open(authURL(port))
	if code != 200 || r.Outcome != Opened || r.CallbackPort != port {
		t.Fatalf("got %d %+v", code, r)
	}
	if d := strings.Join(w.fake.Shown()[0].Details, "\n"); !strings.Contains(d, fmt.Sprintf("its login answers on localhost:%d: lnk listens there", port)) {
		t.Errorf("the question does not say where lnk listens:\n%s", d)
	}
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/callback?code=xyz&state=st", port))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case c := <-codes:
		if c != "xyz" {
			t.Errorf("the login got code %q", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the login got no callback")
	}
}

func TestOpenWithoutTheOAuthEndpointSaysSo(t *testing.T) {
	dial, _ := login(t)
	w := newWorld(t, worldOpts{endpoints: openOnly, answers: []dialogs.Choice{dialogs.AllowOnce}, dial: dial})
	port := freePort(t)
	code, r := w.open(authURL(port))
	if code != 200 || r.Outcome != Opened || r.CallbackPort != 0 || !strings.Contains(r.Note, `no "oauth"`) {
		t.Fatalf("got %d %+v", code, r)
	}
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
		c.Close()
		t.Error("lnk listens on the callback port without the oauth endpoint")
	}
}

func TestOpenRefusesATakenPort(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	dial, _ := login(t)
	w := newWorld(t, worldOpts{endpoints: []string{"open", "oauth"}, answers: []dialogs.Choice{dialogs.AllowOnce}, dial: dial})
	code, r := w.open(authURL(port))
	if code != http.StatusConflict || r.Outcome != Refused || !strings.Contains(r.Message, "taken on this computer") {
		t.Fatalf("got %d %+v", code, r)
	}
	if got := w.openedPages(); len(got) != 0 {
		t.Fatalf("opened %q with its callback port taken", got)
	}
	shown := w.fake.Shown()
	if len(shown) != 1 || !strings.Contains(strings.Join(shown[0].Details, "\n"), "LNK REFUSES THIS PAGE") {
		t.Fatalf("the person was not told: %+v", shown)
	}
}
