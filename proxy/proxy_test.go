package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestHTTPAbsoluteForm(t *testing.T) {
	e := startProxy(t, loopPolicy(t), nil)
	_, port := upstream(t, hello())
	code, body := get(t, e.client(testID, testSecret), "http://Web.LNK.test.:"+port+"/hi")
	if code != 200 || !strings.HasSuffix(body, " /hi") {
		t.Fatalf("got %d %q", code, body)
	}
	r := e.log.waitRecord(t, func(r Record) bool { return r.Proto == ProtoHTTP })
	if r.Decision != Allow || r.Host != "web.lnk.test" || r.Addr != "127.0.0.1:"+port || !strings.Contains(r.Rule, "hosts[0] *.lnk.test") || !strings.Contains(r.Rule, "lan.allow") {
		t.Fatalf("record %+v", r)
	}
	if r.Down != int64(len(body)) || r.Sandbox != testID {
		t.Fatalf("record bytes/sandbox %+v", r)
	}
}

// Without the [network.lan] rule the same loopback upstream is refused.
func TestLoopbackRefusedWithoutLAN(t *testing.T) {
	e := startProxy(t, netPolicy(t, []string{"*.lnk.test"}, nil, nil), nil)
	_, port := upstream(t, hello())
	code, body := get(t, e.client(testID, testSecret), "http://web.lnk.test:"+port+"/")
	if code != http.StatusForbidden || !strings.Contains(body, "loopback") {
		t.Fatalf("got %d %q", code, body)
	}
	r := e.log.waitRecord(t, func(r Record) bool { return r.Decision == Deny })
	if !strings.Contains(r.Rule, "loopback") || r.Addr != "" {
		t.Fatalf("record %+v", r)
	}
	// CONNECT and SOCKS5 too.
	resp := rawRequest(t, e.tcp, "CONNECT web.lnk.test:"+port+" HTTP/1.1\r\nHost: web.lnk.test:"+port+"\r\n"+authHeader()+"\r\n")
	if !strings.HasPrefix(resp, "HTTP/1.1 403") {
		t.Fatalf("CONNECT: %q", resp)
	}
	p, _ := strconv.Atoi(port)
	if c, code := socksDial(t, "tcp", e.tcp, testID, testSecret, "web.lnk.test", p); c != nil || code != socksNotAllowed {
		t.Fatalf("socks code %d", code)
	}
}

func TestCredentials(t *testing.T) {
	e := startProxy(t, loopPolicy(t), nil)
	_, port := upstream(t, hello())
	for _, up := range [][2]string{{"", ""}, {testID, "wrong"}, {"other", testSecret}, {testID, testSecret + "x"}, {testID, testSecret[:5]}} {
		resp, err := e.client(up[0], up[1]).Get("http://web.lnk.test:" + port + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusProxyAuthRequired || resp.Header.Get("Proxy-Authenticate") == "" {
			t.Fatalf("%q: got %d", up, resp.StatusCode)
		}
		p, _ := strconv.Atoi(port)
		if c, code := socksDial(t, "tcp", e.tcp, up[0], up[1], "web.lnk.test", p); c != nil || code != 0xff {
			t.Fatalf("socks %q: code %d", up, code)
		}
	}
	// A SOCKS client that offers no username/password is refused.
	c, err := net.Dial("tcp", e.tcp)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte{5, 1, 0})
	var r [2]byte
	if _, err := io.ReadFull(c, r[:]); err != nil || r != [2]byte{5, 0xff} {
		t.Fatalf("no-auth greeting: %v %v", r, err)
	}
	for _, rec := range e.log.records(t) {
		if rec.Decision != Deny || rec.Rule != "credentials" {
			t.Fatalf("record %+v", rec)
		}
	}
}

func authHeader() string {
	return "Proxy-Authorization: Basic " + basic(testID, testSecret) + "\r\n"
}

// rawRequest writes req on a new connection and returns what comes back
// until the server closes or 2 s pass.
func rawRequest(t testing.TB, addr, req string) string {
	t.Helper()
	network := "tcp"
	if strings.HasPrefix(addr, "/") {
		network = "unix"
	}
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	c.Write([]byte(req))
	b, _ := io.ReadAll(c)
	return string(b)
}

func TestUnixSocketAndPeerCred(t *testing.T) {
	e := startProxy(t, loopPolicy(t), nil)
	_, port := upstream(t, hello())
	type cred struct{ pid, uid, gid int }
	got := make(chan cred, 1)
	e.p.Handle("who", "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pid, uid, gid, ok := PeerCred(r.Context())
		if !ok {
			pid = -1
		}
		if r.Header.Get("Proxy-Authorization") != "" {
			pid = -2
		}
		got <- cred{pid, uid, gid}
	}))
	c := e.unixClient()
	if code, body := get(t, c, "http://web.lnk.test:"+port+"/u"); code != 200 || !strings.HasSuffix(body, "/u") {
		t.Fatalf("got %d %q", code, body)
	}
	if code, _ := get(t, c, "http://lnk.sandbox/who/x"); code != 200 {
		t.Fatalf("route: %d", code)
	}
	if g := <-got; g.pid != os.Getpid() || g.uid != os.Getuid() || g.gid != os.Getgid() {
		t.Fatalf("peer cred %+v", g)
	}
	// Over TCP there is no peer credential.
	get(t, e.client(testID, testSecret), "http://lnk.sandbox/who")
	if g := <-got; g.pid != -1 {
		t.Fatalf("tcp peer cred %+v", g)
	}
	// CONNECT through the unix socket.
	tlsSrv := httptest.NewTLSServer(hello())
	defer tlsSrv.Close()
	_, tport, _ := net.SplitHostPort(tlsSrv.Listener.Addr().String())
	tr := c.Transport.(*http.Transport)
	tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	if code, body := get(t, c, "https://secure.lnk.test:"+tport+"/tls"); code != 200 || !strings.HasSuffix(body, "/tls") {
		t.Fatalf("https got %d %q", code, body)
	}
}

func TestConnectTLSAndKeepAlive(t *testing.T) {
	e := startProxy(t, loopPolicy(t), nil)
	srv := httptest.NewTLSServer(hello())
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	tr := &http.Transport{Proxy: http.ProxyURL(e.proxyURL(testID, testSecret)), TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for i := 0; i < 3; i++ {
		if code, body := get(t, c, "https://secure.lnk.test:"+port+"/k"); code != 200 || !strings.HasSuffix(body, "/k") {
			t.Fatalf("got %d %q", code, body)
		}
	}
	_, hport := upstream(t, hello())
	for i := 0; i < 3; i++ { // keep-alive through the proxy
		if code, _ := get(t, c, "http://web.lnk.test:"+hport+"/k"+strconv.Itoa(i)); code != 200 {
			t.Fatalf("got %d", code)
		}
	}
	tr.CloseIdleConnections()
	for _, r := range e.log.records(t) { // reused upstream connections are logged with their address too
		if r.Proto == ProtoHTTP && r.Addr != "127.0.0.1:"+hport {
			t.Errorf("record %+v", r)
		}
	}
	r := e.log.waitRecord(t, func(r Record) bool { return r.Proto == ProtoConnect })
	if r.Decision != Allow || r.Host != "secure.lnk.test" || r.Up == 0 || r.Down == 0 {
		t.Fatalf("record %+v", r)
	}
}

func TestMalformedHTTP(t *testing.T) {
	e := startProxy(t, loopPolicy(t), func(l *limits) { l.maxHeader = 4096 })
	_, port := upstream(t, hello())
	auth := authHeader()
	cases := []struct{ name, req, want string }{
		{"connect no port", "CONNECT web.lnk.test HTTP/1.1\r\nHost: web.lnk.test\r\n" + auth + "\r\n", "HTTP/1.1 400"},
		{"connect userinfo", "CONNECT u@web.lnk.test:" + port + " HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", "HTTP/1.1 400"},
		{"connect path", "CONNECT /web.lnk.test:" + port + " HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", "HTTP/1.1 400"},
		{"connect port 0", "CONNECT web.lnk.test:0 HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", "HTTP/1.1 400"},
		{"connect port big", "CONNECT web.lnk.test:70000 HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", "HTTP/1.1 400"},
		{"connect ipv6 unbracketed", "CONNECT ::1:80 HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", "HTTP/1.1 400"},
		{"connect own origin", "CONNECT lnk.sandbox:80 HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", "HTTP/1.1 403"},
		{"connect denied", "CONNECT blocked.lnk.test:" + port + " HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", "HTTP/1.1 403"},
		{"connect no auth", "CONNECT web.lnk.test:" + port + " HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 407"},
		{"origin form", "GET / HTTP/1.1\r\nHost: web.lnk.test\r\n" + auth + "\r\n", "HTTP/1.1 400"},
		{"https absolute", "GET https://web.lnk.test:" + port + "/ HTTP/1.1\r\nHost: web.lnk.test\r\n" + auth + "\r\n", "HTTP/1.1 400"},
		{"two lengths", "POST http://web.lnk.test:" + port + "/ HTTP/1.1\r\nHost: web.lnk.test\r\n" + auth + "Content-Length: 4\r\nContent-Length: 5\r\n\r\nabcde", "HTTP/1.1 400"},
		{"bad te", "POST http://web.lnk.test:" + port + "/ HTTP/1.1\r\nHost: web.lnk.test\r\n" + auth + "Transfer-Encoding: gzip, chunked\r\n\r\n", "HTTP/1.1 501"},
		{"space before colon", "GET http://web.lnk.test:" + port + "/ HTTP/1.1\r\nHost: web.lnk.test\r\nContent-Length : 5\r\n" + auth + "\r\n", "HTTP/1.1 400"},
		{"huge header", "GET http://web.lnk.test:" + port + "/ HTTP/1.1\r\nHost: web.lnk.test\r\nX: " + strings.Repeat("a", 8192) + "\r\n" + auth + "\r\n", "HTTP/1.1 431"},
		{"bad host", "GET http://we%0ab.test:" + port + "/ HTTP/1.1\r\nHost: web.lnk.test\r\n" + auth + "\r\n", "HTTP/1.1 40"},
		{"literal ip", "GET http://2130706434:" + port + "/ HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", "HTTP/1.1 403"},
		{"metadata", "GET http://meta.lnk.test/ HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", "HTTP/1.1 403"},
		{"inward and outward", "GET http://both.lnk.test:" + port + "/ HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", "HTTP/1.1 403"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := rawRequest(t, e.tcp, c.req); !strings.HasPrefix(got, c.want) {
				t.Fatalf("got %q, want %q…", got, c.want)
			}
		})
	}
	if strings.Contains(e.log.String(), testSecret) {
		t.Fatal("the secret is in the log")
	}
}

// A request with both Transfer-Encoding and Content-Length reaches the
// upstream with one framing only; the Host header follows the URL.
func TestNoSmuggling(t *testing.T) {
	e := startProxy(t, loopPolicy(t), nil)
	type seen struct {
		method, path, host, body, cl, hop string
	}
	got := make(chan seen, 10)
	_, port := upstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hop := r.Header.Get("Proxy-Authorization") + r.Header.Get("Proxy-Connection") + r.Header.Get("X-Hop") + r.Header.Get("Keep-Alive") + r.Header.Get("X-Forwarded-For")
		got <- seen{r.Method, r.URL.Path, r.Host, string(b), r.Header.Get("Content-Length"), hop}
	}))
	smuggled := "GET /admin HTTP/1.1\r\nHost: web.lnk.test\r\n\r\n"
	body := "0\r\n\r\n" + smuggled
	req := "POST http://web.lnk.test:" + port + "/a HTTP/1.1\r\nHost: evil.lnk.test\r\n" + authHeader() +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\nTransfer-Encoding: chunked\r\nConnection: close, X-Hop\r\nX-Hop: 1\r\nProxy-Connection: keep-alive\r\nKeep-Alive: 5\r\n\r\n" + body
	resp := rawRequest(t, e.tcp, req)
	if !strings.HasPrefix(resp, "HTTP/1.1 200") {
		t.Fatalf("got %q", resp)
	}
	s := <-got
	if s.method != "POST" || s.path != "/a" || s.body != "" || s.host != "web.lnk.test:"+port || s.cl != "" && s.cl != "0" || s.hop != "" {
		t.Fatalf("upstream saw %+v", s)
	}
	select {
	case s := <-got:
		t.Fatalf("smuggled request reached upstream: %+v", s)
	case <-time.After(200 * time.Millisecond):
	}
}

func TestSOCKSMalformed(t *testing.T) {
	e := startProxy(t, loopPolicy(t), func(l *limits) { l.handshake = time.Second })
	auth := append([]byte{5, 1, 2, 1, byte(len(testID))}, testID...)
	auth = append(append(auth, byte(len(testSecret))), testSecret...)
	cases := []struct {
		name string
		in   []byte
		want []byte // the reply's tail after the auth answers
	}{
		{"truncated greeting", []byte{5, 3, 2}, nil},
		{"zero methods", []byte{5, 0}, nil},
		{"bind", append(append([]byte{}, auth...), 5, 2, 0, 1, 127, 0, 0, 1, 0, 80), []byte{5, 2, 1, 0, 5, 7}},
		{"udp", append(append([]byte{}, auth...), 5, 3, 0, 1, 127, 0, 0, 1, 0, 80), []byte{5, 2, 1, 0, 5, 7}},
		{"bad atyp", append(append([]byte{}, auth...), 5, 1, 0, 9, 1, 2), []byte{5, 2, 1, 0, 5, 8}},
		{"bad version", append(append([]byte{}, auth...), 4, 1, 0, 1, 127, 0, 0, 1, 0, 80), []byte{5, 2, 1, 0, 5, 1}},
		{"empty name", append(append([]byte{}, auth...), 5, 1, 0, 3, 0, 0, 80), []byte{5, 2, 1, 0, 5, 1}},
		{"newline name", append(append([]byte{}, auth...), append([]byte{5, 1, 0, 3, 16}, "a\n{\"decision\":1}"...)...), nil},
		{"port zero", append(append([]byte{}, auth...), append([]byte{5, 1, 0, 3, 8}, "web.lnk.test\x00\x00"...)...), []byte{5, 2, 1, 0, 5, 2}},
		{"auth version", []byte{5, 1, 2, 9, 0, 0}, []byte{5, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := []byte(rawRequest(t, e.tcp, string(c.in)))
			if c.want != nil && !strings.HasPrefix(string(got), string(c.want)) {
				t.Fatalf("got % x, want % x…", got, c.want)
			}
			if c.want == nil && len(got) > 4 && got[len(got)-9] == 0 {
				t.Fatalf("got a success reply % x", got)
			}
		})
	}
	// The name with a newline is one line in the log, escaped.
	for _, line := range strings.Split(strings.TrimSpace(e.log.String()), "\n") {
		if !strings.HasPrefix(line, "{\"time\"") {
			t.Fatalf("forged line %q", line)
		}
	}
	e.log.waitRecord(t, func(r Record) bool { return strings.Contains(r.Host, "\n") && r.Decision == Deny })
}

func TestStop(t *testing.T) {
	e := startProxy(t, loopPolicy(t), nil)
	eport := echoServer(t)
	p, _ := strconv.Atoi(eport)
	var tunnels []net.Conn
	for i := 0; i < 3; i++ {
		c, code := socksDial(t, "unix", e.sock, testID, testSecret, "echo.lnk.test", p)
		if c == nil {
			t.Fatalf("socks code %d", code)
		}
		tunnels = append(tunnels, c)
		c2 := connectTunnel(t, e.tcp, "echo.lnk.test:"+eport)
		tunnels = append(tunnels, c2)
	}
	for _, c := range tunnels {
		c.Write([]byte("x"))
		var b [1]byte
		if _, err := io.ReadFull(c, b[:]); err != nil {
			t.Fatal(err)
		}
	}
	// A hijacked route (the daemon's session) and an idle keep-alive
	// connection are closed too.
	e.p.Handle("session", "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: lnk-session\r\nConnection: Upgrade\r\n\r\n")
		io.Copy(io.Discard, c)
		c.Close()
	}))
	sess, err := net.Dial("unix", e.sock)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(sess, "GET http://lnk.sandbox/session HTTP/1.1\r\nHost: lnk.sandbox\r\n"+authHeader()+"Connection: Upgrade\r\nUpgrade: lnk-session\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(sess), nil); err != nil || resp.StatusCode != 101 {
		t.Fatalf("session: %v %v", resp, err)
	}
	ka, err := net.Dial("tcp", e.tcp)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(ka, "GET http://lnk.sandbox/health HTTP/1.1\r\nHost: lnk.sandbox\r\n"+authHeader()+"\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(ka), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("keep-alive: %v %v", resp, err)
	}
	tunnels = append(tunnels, sess, ka)
	// Stop closes every tunnel at once and refuses new connections.
	t0 := time.Now()
	e.p.Stop()
	for _, c := range tunnels {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil || strings.Contains(err.Error(), "timeout") {
			t.Fatalf("tunnel still open after stop: %v", err)
		}
		c.Close()
	}
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("stop took %v", d)
	}
	if got := rawRequest(t, e.tcp, "GET http://lnk.sandbox/health HTTP/1.1\r\nHost: lnk.sandbox\r\n"+authHeader()+"\r\n"); got != "" {
		t.Fatalf("after stop: %q", got)
	}
	e.log.waitRecord(t, func(r Record) bool { return r.Rule == ErrStopped.Error() })
}

func TestPause(t *testing.T) {
	e := startProxy(t, loopPolicy(t), func(l *limits) { l.pauseHold = 2 })
	eport := echoServer(t)
	open := connectTunnel(t, e.tcp, "echo.lnk.test:"+eport)
	defer open.Close()
	// Pause: open tunnels go on; a new request waits, resume releases it.
	e.p.Pause()
	open.Write([]byte("y"))
	if _, err := io.ReadFull(open, make([]byte, 1)); err != nil {
		t.Fatalf("open tunnel stopped by pause: %v", err)
	}
	done := make(chan int, 1)
	go func() {
		resp, err := e.client(testID, testSecret).Get("http://web.lnk.test:" + eport + "/")
		if err != nil {
			done <- -1
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	select {
	case <-done:
		t.Fatal("a request went through while paused")
	case <-time.After(300 * time.Millisecond):
	}
	// Past the hold, a new connection is refused.
	held, err := net.Dial("tcp", e.tcp)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	time.Sleep(100 * time.Millisecond)
	if got := rawRequest(t, e.tcp, "GET http://web.lnk.test/ HTTP/1.1\r\nHost: web.lnk.test\r\n"+authHeader()+"\r\n"); got != "" {
		t.Fatalf("past the hold: %q", got)
	}
	e.log.waitRecord(t, func(r Record) bool { return r.Rule == ErrPaused.Error() })
	e.p.Resume()
	select {
	case <-done: // the echo server is no HTTP server: any answer will do
	case <-time.After(5 * time.Second):
		t.Fatal("resume did not release the request")
	}
}

// connectTunnel opens a CONNECT tunnel with raw I/O.
func connectTunnel(t testing.TB, proxyAddr, target string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n"+authHeader()+"\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT %s: %v %v", target, resp, err)
	}
	if br.Buffered() != 0 {
		t.Fatal("bytes after the CONNECT answer")
	}
	c.SetDeadline(time.Time{})
	return c
}

func TestRoutes(t *testing.T) {
	e := startProxy(t, loopPolicy(t), nil)
	e.p.Handle("open", "open", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "opened") }))
	e.p.Handle("ask", "ask", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "asked "+r.URL.Path) }))
	e.p.Handle("session", "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: lnk-session\r\n\r\n")
		line, _ := brw.ReadString('\n')
		io.WriteString(c, "echo "+line)
	}))
	c := e.client(testID, testSecret)
	for _, tc := range []struct {
		url  string
		code int
		body string
	}{
		{"http://lnk.sandbox/health", 200, "ok"},
		{"http://LNK.sandbox./health", 200, "ok"},
		{"http://lnk.sandbox/ask/q", 200, "asked /ask/q"},
		{"http://lnk.sandbox/open", 403, ""},
		{"http://lnk.sandbox/nothing", 404, ""},
		{"http://lnk.sandbox:8080/health", 400, ""},
	} {
		code, body := get(t, c, tc.url)
		if code != tc.code || tc.body != "" && body != tc.body {
			t.Errorf("%s: got %d %q", tc.url, code, body)
		}
	}
	if code, _ := get(t, e.client("", ""), "http://lnk.sandbox/health"); code != 407 {
		t.Fatalf("health without credentials: %d", code)
	}
	// The session upgrade over the unix socket, as init does it.
	conn, err := net.Dial("unix", e.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(conn, "GET http://lnk.sandbox/session HTTP/1.1\r\nHost: lnk.sandbox\r\n"+authHeader()+"Connection: Upgrade\r\nUpgrade: lnk-session\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("session: %v %v", resp, err)
	}
	io.WriteString(conn, "{\"event\":\"start\",\"pid\":2}\n")
	if line, _ := br.ReadString('\n'); line != "echo {\"event\":\"start\",\"pid\":2}\n" {
		t.Fatalf("session line %q", line)
	}
}

func TestDialTimeoutContext(t *testing.T) {
	// decide honours a resolver that fails.
	e := startProxy(t, netPolicy(t, []string{"*"}, nil, nil), nil)
	v := e.p.decide(context.Background(), "nowhere.invalid", 80)
	if v.allow || v.rule != "resolve" {
		t.Fatalf("%+v", v)
	}
}

func TestIdleTunnelAndConnLimit(t *testing.T) {
	e := startProxy(t, loopPolicy(t), func(l *limits) { l.tunnelIdle = 400 * time.Millisecond; l.maxConns = 3 })
	eport := echoServer(t)
	// A tunnel that keeps moving bytes one way outlives the idle time.
	busy := connectTunnel(t, e.tcp, "echo.lnk.test:"+eport)
	defer busy.Close()
	for i := 0; i < 10; i++ {
		busy.Write([]byte("x"))
		busy.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := io.ReadFull(busy, make([]byte, 1)); err != nil {
			t.Fatalf("busy tunnel closed after %d: %v", i, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A silent one is closed after one to two idle times.
	idle := connectTunnel(t, e.tcp, "echo.lnk.test:"+eport)
	defer idle.Close()
	t0 := time.Now()
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idle.Read(make([]byte, 1)); err == nil || strings.Contains(err.Error(), "timeout") {
		t.Fatalf("idle tunnel not closed: %v", err)
	}
	if d := time.Since(t0); d < 150*time.Millisecond || d > 3*time.Second {
		t.Fatalf("idle tunnel closed after %v", d)
	}
	e.log.waitRecord(t, func(r Record) bool { return r.Error == errIdle.Error() })
	// At most maxConns client connections at once.
	busy.Close()
	for i := 0; ; i++ {
		e.p.mu.Lock()
		n := e.p.active
		e.p.mu.Unlock()
		if n == 0 {
			break
		}
		if i > 200 {
			t.Fatalf("%d connections still open", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var open []net.Conn
	for i := 0; i < 3; i++ {
		open = append(open, connectTunnel(t, e.tcp, "echo.lnk.test:"+eport))
	}
	if got := rawRequest(t, e.tcp, "GET http://lnk.sandbox/health HTTP/1.1\r\nHost: x\r\n"+authHeader()+"\r\n"); got != "" {
		t.Fatalf("over the limit: %q", got)
	}
	e.log.waitRecord(t, func(r Record) bool { return r.Rule == "too many connections at once" })
	for _, c := range open {
		c.Close()
	}
}

// A route that refuses is logged as a refusal, not as an allowed route.
func TestRouteRefusalLogged(t *testing.T) {
	e := startProxy(t, loopPolicy(t), nil)
	e.p.Handle("picky", "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not you", http.StatusForbidden)
	}))
	e.p.Handle("fine", "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	c := e.client(testID, testSecret)
	if code, _ := get(t, c, "http://lnk.sandbox/picky"); code != 403 {
		t.Fatalf("picky: %d", code)
	}
	if code, _ := get(t, c, "http://lnk.sandbox/fine"); code != 200 {
		t.Fatalf("fine: %d", code)
	}
	var picky, fine Record
	for _, line := range strings.Split(strings.TrimSpace(e.log.String()), "\n") {
		var r Record
		json.Unmarshal([]byte(line), &r)
		switch {
		case strings.Contains(r.Rule, "picky"):
			picky = r
		case strings.Contains(r.Rule, "fine"):
			fine = r
		}
	}
	if picky.Decision != Deny || picky.Rule != "route picky answered 403" {
		t.Errorf("the refusing route is logged as %+v", picky)
	}
	if fine.Decision != Allow || fine.Rule != "route fine" {
		t.Errorf("the answering route is logged as %+v", fine)
	}
}
