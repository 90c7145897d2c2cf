package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"sync"
	"time"

	"lnk.dev/sandbox/spec"
)

// Config is what a sandbox's proxy needs to know.
type Config struct {
	// SandboxID names the sandbox in the log; it is also the proxy user
	// name.
	SandboxID string
	// Secret is the sandbox's password: HTTP Proxy-Authorization Basic
	// SandboxID:Secret, SOCKS5 (RFC 1929) the same pair. It must not be
	// empty.
	Secret string
	// Network is the sandbox's compiled [network] section.
	Network spec.NetworkPolicy
	// Log receives one record per connection or request; nil logs nothing.
	Log *Log
	// Resolve looks a name up; nil uses the system resolver. It is called
	// only for names the rules allow.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to a checked ip:port; nil uses a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Errors callers may branch on.
var (
	// ErrClosed is returned by Serve after Close.
	ErrClosed = errors.New("proxy: closed")
	// ErrStopped refuses a connection after Stop.
	ErrStopped = errors.New("proxy: the sandbox was stopped")
	// ErrPaused refuses a connection while paused, once the hold is full
	// or the wait is over.
	ErrPaused = errors.New("proxy: the sandbox is paused")
)

// limits are the proxy's hygiene bounds. Tests shrink them.
type limits struct {
	handshake  time.Duration // first byte, SOCKS5 handshake, HTTP request headers
	idle       time.Duration // an HTTP keep-alive connection between requests
	tunnelIdle time.Duration // a CONNECT or SOCKS5 tunnel with no bytes either way (closed after 1 to 2 times this)
	dial       time.Duration // resolving plus connecting upstream
	maxConns   int           // client connections open at once
	maxHeader  int           // bytes of HTTP request headers
	pauseHold  int           // connections held while paused
	pauseWait  time.Duration // how long one is held before it is refused
}

var defaultLimits = limits{
	handshake:  10 * time.Second,
	idle:       2 * time.Minute,
	tunnelIdle: 10 * time.Minute,
	dial:       30 * time.Second,
	maxConns:   4096,
	maxHeader:  64 << 10,
	pauseHold:  256,
	pauseWait:  2 * time.Minute,
}

// Proxy is one sandbox's way out. Create it with [New], then call Serve
// for each listener.
type Proxy struct {
	cfg       Config
	lim       limits
	srv       *http.Server
	hl        *chanListener // feeds HTTP connections to srv
	transport *http.Transport
	rp        *httputil.ReverseProxy
	own       ownAddrs
	dialer    net.Dialer
	srvOnce   sync.Once // starts srv on the first Serve

	mu        sync.Mutex // guards the fields below
	conns     map[io.Closer]struct{}
	listeners map[net.Listener]struct{}
	routes    map[string]routeEntry
	active    int // client connections open
	held      int // connections waiting in Pause
	paused    bool
	resume    chan struct{} // closed by Resume
	stopped   bool
	closed    bool
}

type routeEntry struct {
	endpoint string
	h        http.Handler
}

// New returns a proxy for one sandbox. It serves nothing until Serve.
func New(cfg Config) (*Proxy, error) {
	if cfg.Secret == "" {
		return nil, errors.New("proxy: empty secret: give every sandbox its own random secret")
	}
	if cfg.SandboxID == "" {
		return nil, errors.New("proxy: empty sandbox id: name the sandbox")
	}
	switch cfg.Network.Mode {
	case spec.ModeProxy, spec.ModeHost:
	default:
		return nil, fmt.Errorf("proxy: network mode %q: use %q or %q", cfg.Network.Mode, spec.ModeProxy, spec.ModeHost)
	}
	p := &Proxy{
		cfg:       cfg,
		lim:       defaultLimits,
		conns:     map[io.Closer]struct{}{},
		listeners: map[net.Listener]struct{}{},
		routes:    map[string]routeEntry{},
		resume:    make(chan struct{}),
	}
	close(p.resume)
	p.hl = newChanListener()
	p.transport = &http.Transport{
		Proxy:                 nil, // never chain to the host's own proxy settings
		DialContext:           p.transportDial,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 0, // a slow server is the sandbox's business
		DisableCompression:    true,
		WriteBufferSize:       64 << 10,
		ReadBufferSize:        64 << 10,
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite:      rewrite,
		Transport:    p.transport,
		BufferPool:   bufPool{},
		ErrorHandler: p.upstreamError,
		ErrorLog:     log.New(io.Discard, "", 0),
	}
	p.srv = &http.Server{
		Handler:           http.HandlerFunc(p.serveHTTP),
		ReadHeaderTimeout: p.lim.handshake,
		IdleTimeout:       p.lim.idle,
		MaxHeaderBytes:    p.lim.maxHeader,
		ConnContext:       connContext,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	return p, nil
}

// setLimits replaces the bounds (tests). Call it before Serve.
func (p *Proxy) setLimits(l limits) {
	p.lim = l
	p.srv.ReadHeaderTimeout = l.handshake
	p.srv.IdleTimeout = l.idle
	p.srv.MaxHeaderBytes = l.maxHeader
}

// Serve accepts connections on l (a unix socket or loopback TCP) until l
// fails or the proxy is closed; after Close it returns ErrClosed.
func (p *Proxy) Serve(l net.Listener) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.listeners[l] = struct{}{}
	p.mu.Unlock()
	p.srvOnce.Do(func() { go p.srv.Serve(p.hl) })
	defer func() {
		p.mu.Lock()
		delete(p.listeners, l)
		p.mu.Unlock()
	}()
	var delay time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if p.isClosed() {
				return ErrClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, errTooManyFiles) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return fmt.Errorf("proxy: accept: %w", err)
		}
		delay = 0
		go p.serveConn(c)
	}
}

func (p *Proxy) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Pause holds new connections (and new requests on open ones) until
// Resume: up to a bound, then they are refused. Open tunnels go on.
func (p *Proxy) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.paused && !p.stopped {
		p.paused = true
		p.resume = make(chan struct{})
	}
}

// Resume releases the connections Pause held.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused {
		p.paused = false
		close(p.resume)
	}
}

// Stop closes every open connection of the sandbox at once and refuses new
// ones from then on. It does not close the listeners; Close does.
func (p *Proxy) Stop() {
	p.mu.Lock()
	p.stopped = true
	if p.paused {
		p.paused = false
		close(p.resume)
	}
	open := make([]io.Closer, 0, len(p.conns))
	for c := range p.conns {
		open = append(open, c)
	}
	p.mu.Unlock()
	for _, c := range open {
		c.Close()
	}
	p.transport.CloseIdleConnections()
}

// Close stops the proxy (see Stop) and closes its listeners; Serve then
// returns ErrClosed.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	ls := make([]net.Listener, 0, len(p.listeners))
	for l := range p.listeners {
		ls = append(ls, l)
	}
	p.mu.Unlock()
	p.Stop()
	var first error
	for _, l := range ls {
		if err := l.Close(); err != nil && first == nil && !errors.Is(err, net.ErrClosed) {
			first = fmt.Errorf("proxy: close listener: %w", err)
		}
	}
	p.hl.Close()
	p.srv.Close()
	p.transport.CloseIdleConnections()
	return first
}

// waitResume returns at once unless the proxy is paused; then it holds the
// caller until Resume, Stop, the hold's end, or ctx's end.
func (p *Proxy) waitResume(ctx context.Context) error {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return ErrStopped
	}
	if !p.paused {
		p.mu.Unlock()
		return nil
	}
	if p.held >= p.lim.pauseHold {
		p.mu.Unlock()
		return ErrPaused
	}
	p.held++
	ch := p.resume
	p.mu.Unlock()
	t := time.NewTimer(p.lim.pauseWait)
	defer t.Stop()
	var err error
	select {
	case <-ch:
	case <-t.C:
		err = ErrPaused
	case <-ctx.Done():
		err = ErrPaused
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held--
	if p.stopped {
		return ErrStopped
	}
	return err
}

// track registers an open connection so that Stop can close it; it
// refuses once stopped.
func (p *Proxy) track(c io.Closer) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c io.Closer) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// log writes r, filling in the sandbox and the duration.
func (p *Proxy) log(r *Record) {
	r.Sandbox = p.cfg.SandboxID
	r.Duration = time.Since(r.Time).Milliseconds()
	p.cfg.Log.Write(*r)
}

// bufPool hands ReverseProxy large buffers: fewer syscalls per byte.
type bufPool struct{}

var bufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

func (bufPool) Get() []byte  { return *bufs.Get().(*[]byte) }
func (bufPool) Put(b []byte) { bufs.Put(&b) }
