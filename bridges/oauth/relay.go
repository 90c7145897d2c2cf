package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"lnk.dev/sandbox/proxy"
)

// DefaultWait is how long a callback port waits for its request.
const DefaultWait = 5 * time.Minute

// Dialer connects to the sandbox's own loopback on the callback's port.
type Dialer func(ctx context.Context) (net.Conn, error)

// Relays holds every callback port the daemon listens on, across all
// sandboxes: one port per page, never two pages on one port.
type Relays struct {
	// Wait is how long a port waits for its request (DefaultWait).
	Wait time.Duration

	mu   sync.Mutex // guards open
	open map[int]*Relay
}

// PortError says why a callback port cannot be listened on.
type PortError struct {
	Callback Callback
	// Sandbox is the sandbox whose page already waits on the port, or ""
	// when another program holds it (or it cannot be listened on).
	Sandbox string
	Err     error
}

func (e *PortError) Error() string {
	if e.Sandbox != "" {
		return fmt.Sprintf("the login's callback port %s is taken: a page of sandbox %s waits on it", e.Callback.Addr(), e.Sandbox)
	}
	if errors.Is(e.Err, syscall.EADDRINUSE) {
		return fmt.Sprintf("the login's callback port %s is taken on this computer by another program, which would receive the login's answer", e.Callback.Addr())
	}
	return fmt.Sprintf("lnk cannot listen on the login's callback port %s on this computer: %v", e.Callback.Addr(), e.Err)
}

func (e *PortError) Unwrap() error { return e.Err }

// Relay is one page's callback port on the host.
type Relay struct {
	rs    *Relays
	cb    Callback
	owner string // the sandbox's id
	ls    []net.Listener

	mu      sync.Mutex // guards the fields below
	srv     *http.Server
	timer   *time.Timer
	log     func(proxy.Record)
	closed  bool
	started time.Time
	passErr error // why the request could not pass, if it could not

	served atomic.Bool
	done   chan struct{}
}

// Reserve listens on cb's port on the host's loopback for sandbox owner:
// 127.0.0.1, [::1], or both for localhost (where this computer has
// IPv6). It accepts nothing until Start. A port another program holds,
// or a page of another sandbox, is a *PortError; an earlier page of the
// same sandbox on the same port is closed and replaced.
func (rs *Relays) Reserve(owner string, cb *Callback) (*Relay, error) {
	rs.mu.Lock()
	old := rs.open[cb.Port]
	rs.mu.Unlock()
	if old != nil {
		if old.owner != owner {
			return nil, &PortError{Callback: *cb, Sandbox: old.owner}
		}
		old.Close("replaced by a new page from the same sandbox")
	}
	ls, err := listen(cb)
	if err != nil {
		return nil, &PortError{Callback: *cb, Err: err}
	}
	r := &Relay{rs: rs, cb: *cb, owner: owner, ls: ls, done: make(chan struct{})}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.open == nil {
		rs.open = map[int]*Relay{}
	}
	if other := rs.open[cb.Port]; other != nil {
		// Another page took the port between the two locks: our listen
		// would have failed, but never share a port on a guess.
		closeAll(ls)
		return nil, &PortError{Callback: *cb, Sandbox: other.owner}
	}
	rs.open[cb.Port] = r
	return r, nil
}

// listen opens the loopback listeners of cb.
func listen(cb *Callback) ([]net.Listener, error) {
	port := strconv.Itoa(cb.Port)
	var ls []net.Listener
	if cb.Host == HostIPv4 || cb.Host == HostLocalhost {
		l, err := net.Listen("tcp4", "127.0.0.1:"+port)
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
	}
	if cb.Host == HostIPv6 || cb.Host == HostLocalhost {
		l, err := net.Listen("tcp6", "[::1]:"+port)
		switch {
		case err == nil:
			ls = append(ls, l)
		case cb.Host == HostLocalhost && noIPv6(err):
			// No ::1 on this computer: localhost is 127.0.0.1 alone.
		default:
			closeAll(ls)
			return nil, err
		}
	}
	return ls, nil
}

func noIPv6(err error) bool {
	return errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EAFNOSUPPORT) || errors.Is(err, syscall.EPROTONOSUPPORT)
}

func closeAll(ls []net.Listener) {
	for _, l := range ls {
		l.Close()
	}
}

// Callback returns the callback the relay listens for.
func (r *Relay) Callback() Callback { return r.cb }

// Done is closed when the relay has closed.
func (r *Relay) Done() <-chan struct{} { return r.done }

// Start accepts on the reserved port: the first request goes to dial
// (the sandbox's own loopback) and its answer back to the browser, then
// the port closes. It closes after rs.Wait with no request, or when
// stop is closed (the sandbox ended). page is the page the port is for,
// as the log names it; log writes the sandbox's log.
func (r *Relay) Start(page string, dial Dialer, logf func(proxy.Record), stop <-chan struct{}) {
	wait := r.rs.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = "http"
			pr.Out.URL.Host = r.cb.Addr()
			pr.Out.Host = pr.In.Host
			// Cookies are not port-scoped: the browser sends every
			// localhost cookie of the person's other local programs.
			// None is the sandbox's to read.
			pr.Out.Header.Del("Cookie")
			pr.Out.Header.Del("Authorization")
		},
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           func(ctx context.Context, _, _ string) (net.Conn, error) { return dial(ctx) },
			DisableKeepAlives:     true,
			ResponseHeaderTimeout: time.Minute,
		},
		ModifyResponse: func(resp *http.Response) error {
			// Nor may the sandbox set cookies on the person's localhost.
			resp.Header.Del("Set-Cookie")
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			r.mu.Lock()
			r.passErr = err
			r.mu.Unlock()
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "lnk: the login program in the sandbox did not answer on %s: %v\n", r.cb.Addr(), err)
		},
		ErrorLog: log.New(io.Discard, "", 0),
	}
	srv := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { r.serve(w, req, rp) }),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.srv, r.log, r.started = srv, logf, time.Now()
	r.timer = time.AfterFunc(wait, func() { r.Close("no request came in " + wait.String()) })
	r.mu.Unlock()
	r.record(proxy.Allow, "oauth: listening on "+r.cb.Addr()+" for the login's answer to "+page+" (for "+wait.String()+")", nil)
	for _, l := range r.ls {
		go srv.Serve(l)
	}
	go func() {
		select {
		case <-stop:
			r.Close("the sandbox ended")
		case <-r.done:
		}
	}()
}

// serve passes the first request into the sandbox and refuses the rest.
func (r *Relay) serve(w http.ResponseWriter, req *http.Request, rp *httputil.ReverseProxy) {
	w.Header().Set("Connection", "close")
	if !r.served.CompareAndSwap(false, true) {
		http.Error(w, "lnk: this login's answer has already been passed into the sandbox; lnk passes one request per page", http.StatusGone)
		r.record(proxy.Deny, "oauth: refused a second request to "+r.cb.Addr()+" ("+req.Method+" "+req.URL.Path+")", nil)
		return
	}
	r.stopListening()
	start := time.Now()
	cw := &countingWriter{ResponseWriter: w}
	rp.ServeHTTP(cw, req)
	// The path, never the query: it holds the login's code.
	rule := fmt.Sprintf("oauth: passed %s %s from %s into the sandbox (status %d)", req.Method, clip(req.URL.Path), r.cb.Addr(), cw.status())
	r.mu.Lock()
	logf, passErr := r.log, r.passErr
	r.mu.Unlock()
	if logf != nil {
		decision := proxy.Allow
		var errText string
		if passErr != nil {
			rule = fmt.Sprintf("oauth: could not pass %s %s from %s into the sandbox", req.Method, clip(req.URL.Path), r.cb.Addr())
			decision, errText = proxy.Deny, "nothing in the sandbox answered: "+passErr.Error()
		}
		logf(proxy.Record{Time: start, Proto: proxy.ProtoOAuth, Host: r.cb.Host, Port: uint16(r.cb.Port),
			Decision: decision, Rule: rule, Down: cw.n, Duration: time.Since(start).Milliseconds(), Error: errText})
	}
	go r.Close("its one request passed")
}

// stopListening closes the listeners: later connections are refused.
func (r *Relay) stopListening() { closeAll(r.ls) }

// Close closes the port, once, and logs why.
func (r *Relay) Close(reason string) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	srv, timer := r.srv, r.timer
	r.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	r.stopListening()
	r.rs.mu.Lock()
	if r.rs.open[r.cb.Port] == r {
		delete(r.rs.open, r.cb.Port)
	}
	r.rs.mu.Unlock()
	if srv != nil {
		r.record(proxy.Allow, "oauth: closed "+r.cb.Addr()+": "+reason, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
		cancel()
	}
	close(r.done)
}

func (r *Relay) record(decision, rule string, err error) {
	r.mu.Lock()
	logf, started := r.log, r.started
	r.mu.Unlock()
	if logf == nil {
		return
	}
	rec := proxy.Record{Time: time.Now(), Proto: proxy.ProtoOAuth, Host: r.cb.Host, Port: uint16(r.cb.Port),
		Decision: decision, Rule: rule}
	if !started.IsZero() {
		rec.Duration = time.Since(started).Milliseconds()
	}
	if err != nil {
		rec.Error = err.Error()
	}
	logf(rec)
}

// countingWriter counts the bytes and keeps the status written.
type countingWriter struct {
	http.ResponseWriter
	n    int64
	code int
}

func (c *countingWriter) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if c.code == 0 {
		c.code = http.StatusOK
	}
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	return n, err
}

func (c *countingWriter) status() int {
	if c.code == 0 {
		return http.StatusOK
	}
	return c.code
}
