package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"lnk.dev/sandbox/spec"
)

const (
	testID     = "sb-test"
	testSecret = "s3cr3t-Zq9-do-not-log"
)

// netPolicy builds a NetworkPolicy from hosts, deny and lan entries.
func netPolicy(t testing.TB, hosts, deny, lan []string) spec.NetworkPolicy {
	t.Helper()
	n := spec.NetworkPolicy{Mode: spec.ModeProxy, Endpoints: []string{"ask"}}
	for _, h := range hosts {
		p, err := spec.ParseHostPattern(h)
		if err != nil {
			t.Fatal(err)
		}
		n.Hosts = append(n.Hosts, p)
	}
	for _, h := range deny {
		p, err := spec.ParseDenyPattern(h)
		if err != nil {
			t.Fatal(err)
		}
		n.Deny = append(n.Deny, p)
	}
	for _, l := range lan {
		r, err := spec.ParseLANRule(l)
		if err != nil {
			t.Fatal(err)
		}
		n.LAN = append(n.LAN, r)
	}
	return n
}

// loopPolicy allows *.test names and loopback 127.0.0.1 by [network.lan].
func loopPolicy(t testing.TB) spec.NetworkPolicy {
	return netPolicy(t, []string{"*.lnk.test"}, []string{"blocked.lnk.test"}, []string{"127.0.0.1"})
}

// testResolve maps every *.test name to 127.0.0.1, and "both.lnk.test" also to
// a public address.
func testResolve(_ context.Context, host string) ([]netip.Addr, error) {
	switch {
	case host == "both.lnk.test":
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.0.0.1")}, nil
	case host == "meta.lnk.test":
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	case strings.HasSuffix(host, ".test"):
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, fmt.Errorf("no such host %q in the test resolver", host)
}

// syncBuffer is a concurrency-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// records parses the log; every line must be one JSON record.
func (s *syncBuffer) records(t testing.TB) []Record {
	t.Helper()
	var out []Record
	sc := bufio.NewScanner(strings.NewReader(s.String()))
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("log line %q is not a record: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

// waitRecord waits for a log record that pred accepts.
func (s *syncBuffer) waitRecord(t testing.TB, pred func(Record) bool) Record {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, r := range s.records(t) {
			if pred(r) {
				return r
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no matching log record in:\n%s", s.String())
	return Record{}
}

type env struct {
	p    *Proxy
	tcp  string // 127.0.0.1:port
	sock string // unix socket path
	log  *syncBuffer
}

// startProxy serves a proxy on a loopback TCP listener and a unix socket.
func startProxy(t testing.TB, np spec.NetworkPolicy, tweak func(*limits)) *env {
	t.Helper()
	e := &env{log: &syncBuffer{}}
	p, err := New(Config{SandboxID: testID, Secret: testSecret, Network: np, Log: NewLog(e.log), Resolve: testResolve})
	if err != nil {
		t.Fatal(err)
	}
	if tweak != nil {
		l := p.lim
		tweak(&l)
		p.setLimits(l)
	}
	e.p = p
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.tcp = tl.Addr().String()
	e.sock = filepath.Join(t.TempDir(), "proxy.sock")
	ul, err := net.Listen("unix", e.sock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.Serve(tl) }()
	go func() { defer wg.Done(); p.Serve(ul) }()
	t.Cleanup(func() {
		p.Close()
		tl.Close()
		ul.Close()
		wg.Wait()
	})
	return e
}

func (e *env) proxyURL(user, pass string) *url.URL {
	u := &url.URL{Scheme: "http", Host: e.tcp}
	if user != "" || pass != "" {
		u.User = url.UserPassword(user, pass)
	}
	return u
}

// client is an http.Client through the proxy's TCP listener.
func (e *env) client(user, pass string) *http.Client {
	tr := &http.Transport{Proxy: http.ProxyURL(e.proxyURL(user, pass)), DisableKeepAlives: true}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// unixClient is an http.Client through the proxy's unix socket.
func (e *env) unixClient() *http.Client {
	tr := &http.Transport{
		Proxy: http.ProxyURL(e.proxyURL(testID, testSecret)),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", e.sock)
		},
		DisableKeepAlives: true,
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// upstream starts an HTTP server on 127.0.0.1 and returns its port.
func upstream(t testing.TB, h http.Handler) (*httptest.Server, string) {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	_, port, _ := net.SplitHostPort(s.Listener.Addr().String())
	return s, port
}

func hello() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s %s", r.Host, r.URL.Path)
	})
}

func get(t testing.TB, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// echoServer accepts on 127.0.0.1 and echoes every connection back.
func echoServer(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				io.Copy(c, c)
				c.Close()
			}()
		}
	}()
	t.Cleanup(func() { l.Close(); wg.Wait() })
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// socksDial does a SOCKS5 handshake with user/pass to host:port (a name)
// and returns the connection and the reply code.
func socksDial(t testing.TB, network, addr, user, pass, host string, port int) (net.Conn, byte) {
	t.Helper()
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	msg := []byte{5, 1, 2, 1, byte(len(user))}
	msg = append(msg, user...)
	msg = append(msg, byte(len(pass)))
	msg = append(msg, pass...)
	msg = append(msg, 5, 1, 0, 3, byte(len(host)))
	msg = append(msg, host...)
	msg = append(msg, byte(port>>8), byte(port))
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	var r [2]byte
	if _, err := io.ReadFull(c, r[:]); err != nil || r != [2]byte{5, 2} {
		t.Fatalf("socks method reply %v %v", r, err)
	}
	if _, err := io.ReadFull(c, r[:]); err != nil {
		t.Fatalf("socks auth reply: %v", err)
	}
	if r[1] != 0 {
		c.Close()
		return nil, 0xff
	}
	var rep [10]byte
	if _, err := io.ReadFull(c, rep[:]); err != nil {
		t.Fatalf("socks reply: %v", err)
	}
	c.SetDeadline(time.Time{})
	if rep[1] != 0 {
		c.Close()
		return nil, rep[1]
	}
	return c, 0
}

func basic(user, pass string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
}
