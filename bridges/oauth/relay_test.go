package oauth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"lnk.dev/sandbox/proxy"
)

// freePort returns a loopback port nothing listens on (for a moment).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// records collects a relay's log lines.
type records struct {
	mu sync.Mutex
	rs []proxy.Record
}

func (r *records) add(rec proxy.Record) {
	r.mu.Lock()
	r.rs = append(r.rs, rec)
	r.mu.Unlock()
}

func (r *records) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, rec := range r.rs {
		fmt.Fprintf(&b, "%s %s %s %s\n", rec.Proto, rec.Decision, rec.Rule, rec.Error)
	}
	return b.String()
}

// inside is a test's stand-in for the login program in the sandbox.
type inside struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newInside(t *testing.T) *inside {
	in := &inside{}
	in.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in.mu.Lock()
		in.reqs = append(in.reqs, r)
		in.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "planted", Value: "1"})
		fmt.Fprintf(w, "logged in with %s", r.URL.Query().Get("code"))
	}))
	t.Cleanup(in.srv.Close)
	return in
}

func (in *inside) dial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", in.srv.Listener.Addr().String())
}

func (in *inside) requests() []*http.Request {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]*http.Request(nil), in.reqs...)
}

func waitDone(t *testing.T, r *Relay) {
	t.Helper()
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the relay did not close")
	}
}

func TestRelayPassesTheFirstRequestOnly(t *testing.T) {
	in := newInside(t)
	rs := &Relays{Wait: time.Minute}
	port := freePort(t)
	r, err := rs.Reserve("sb1", &Callback{Host: HostLocalhost, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	var log records
	r.Start("https://p.example/auth", in.dial, log.add, nil)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// A second connection opened before the first request (a browser's
	// preconnect) gets a refusal, not the sandbox.
	early, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Close()
	req, _ := http.NewRequest("GET", "http://"+addr+"/callback?code=c0de&state=s", nil)
	req.Host = fmt.Sprintf("localhost:%d", port)
	req.Header.Set("Cookie", "jupyter=secret")
	req.Header.Set("Authorization", "Basic c2VjcmV0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "logged in with c0de" {
		t.Fatalf("the browser got %s %q", resp.Status, body)
	}
	if c := resp.Header.Get("Set-Cookie"); c != "" {
		t.Errorf("the sandbox set a cookie on the person's localhost: %q", c)
	}
	got := in.requests()
	if len(got) != 1 {
		t.Fatalf("the sandbox got %d requests, want 1", len(got))
	}
	if g := got[0]; g.Header.Get("Cookie") != "" || g.Header.Get("Authorization") != "" || g.Host != req.Host || g.URL.Path != "/callback" {
		t.Errorf("the sandbox got Host %q path %q Cookie %q Authorization %q", g.Host, g.URL.Path, g.Header.Get("Cookie"), g.Header.Get("Authorization"))
	}
	fmt.Fprintf(early, "GET /callback?code=again HTTP/1.1\r\nHost: localhost\r\n\r\n")
	early.SetReadDeadline(time.Now().Add(5 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReader(early), nil); err == nil {
		if resp.StatusCode != http.StatusGone {
			t.Errorf("a second request got %s, want 410 Gone", resp.Status)
		}
		resp.Body.Close()
	} // or the connection was closed: refused too
	waitDone(t, r)
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Error("the callback port still accepts after its request")
	}
	if n := len(in.requests()); n != 1 {
		t.Errorf("the sandbox got %d requests, want 1", n)
	}
	text := log.text()
	for _, want := range []string{"listening on localhost:", "passed GET /callback", "closed localhost:"} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "c0de") {
		t.Errorf("the log holds the login's code:\n%s", text)
	}
}

func TestRelayPortTakenOnTheComputer(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	rs := &Relays{}
	for _, host := range []string{HostLocalhost, HostIPv4} {
		_, err = rs.Reserve("sb1", &Callback{Host: host, Port: port})
		var pe *PortError
		if !errors.As(err, &pe) || pe.Sandbox != "" || !strings.Contains(err.Error(), "taken on this computer by another program") {
			t.Errorf("Reserve(%s) on a taken port: %v", host, err)
		}
	}
}

func TestRelayOnePagePerPort(t *testing.T) {
	rs := &Relays{}
	port := freePort(t)
	cb := &Callback{Host: HostIPv4, Port: port}
	first, err := rs.Reserve("sb1", cb)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rs.Reserve("sb2", cb)
	var pe *PortError
	if !errors.As(err, &pe) || pe.Sandbox != "sb1" {
		t.Fatalf("another sandbox's page on the same port: %v", err)
	}
	// The same sandbox's new page (a login run again) replaces its old one.
	second, err := rs.Reserve("sb1", cb)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, first)
	second.Close("test over")
	waitDone(t, second)
	third, err := rs.Reserve("sb2", cb)
	if err != nil {
		t.Fatalf("a closed port is not free again: %v", err)
	}
	third.Close("test over")
}

func TestRelayExpires(t *testing.T) {
	in := newInside(t)
	rs := &Relays{Wait: 200 * time.Millisecond}
	port := freePort(t)
	r, err := rs.Reserve("sb1", &Callback{Host: HostIPv4, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	var log records
	r.Start("https://p.example/auth", in.dial, log.add, nil)
	waitDone(t, r)
	if _, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
		t.Error("the callback port accepts after it expired")
	}
	if text := log.text(); !strings.Contains(text, "no request came in 200ms") {
		t.Errorf("log:\n%s", text)
	}
	if len(in.requests()) != 0 {
		t.Error("a request passed")
	}
}

func TestRelayClosesWithTheSandbox(t *testing.T) {
	in := newInside(t)
	rs := &Relays{}
	r, err := rs.Reserve("sb1", &Callback{Host: HostIPv4, Port: freePort(t)})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var log records
	r.Start("https://p.example/auth", in.dial, log.add, stop)
	close(stop)
	waitDone(t, r)
	if text := log.text(); !strings.Contains(text, "the sandbox ended") {
		t.Errorf("log:\n%s", text)
	}
}

func TestRelayNothingListensInside(t *testing.T) {
	rs := &Relays{}
	port := freePort(t)
	r, err := rs.Reserve("sb1", &Callback{Host: HostIPv4, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	var log records
	r.Start("https://p.example/auth", func(context.Context) (net.Conn, error) {
		return nil, errors.New("nothing listens on 127.0.0.1 in the sandbox")
	}, log.add, nil)
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/callback?code=x", port))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "did not answer") {
		t.Errorf("got %s %q", resp.Status, body)
	}
	waitDone(t, r)
	if text := log.text(); !strings.Contains(text, "oauth deny oauth: could not pass GET /callback") || !strings.Contains(text, "nothing in the sandbox answered") {
		t.Errorf("log:\n%s", text)
	}
}
