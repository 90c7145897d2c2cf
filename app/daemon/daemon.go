package daemon

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/localapi"
	"lnk.dev/sandbox/app/safesocket"
	"lnk.dev/sandbox/bridges"
	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
)

// ErrRunning is wrapped by Run's error when another daemon of this user
// already runs.
var ErrRunning = errors.New("another lnk daemon is already running for this user")

// Config sets up a daemon. Zero fields take the defaults.
type Config struct {
	// Paths are the per-user folders; zero = apitype.DefaultPaths().
	Paths apitype.Paths
	// Socket is the control socket; "" = safesocket.SocketPath(Paths.Runtime).
	Socket string
	// LnkPath is the lnk binary bound into each sandbox; "" = this program.
	LnkPath string
	// Version is reported by status.
	Version string
	// Logf logs the daemon's own events; nil = the standard logger.
	Logf func(format string, args ...any)
	// WrapExpiry is how long a wrapped sandbox may wait for its init
	// (default 10 minutes).
	WrapExpiry time.Duration
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL
	// (default 3 seconds).
	StopGrace time.Duration
	// Keep is how long a finished sandbox stays in the list (default 1 hour).
	Keep time.Duration
	// AskTimeout is how long a question waits for the person (default
	// two minutes).
	AskTimeout time.Duration
	// Debug logs what is kept out of the log otherwise: each tool call's
	// arguments.
	Debug bool
	// Dialog shows questions on the screen; nil is zenity's native
	// dialogs (used when a display is there).
	Dialog dialogs.Dialog
	// Ready, if set, is called once the daemon is set up and before it
	// serves, with the daemon, for in-process views (the tray).
	Ready func(*Daemon)
	// OpenURL opens a page a sandbox was allowed to open, in the person's
	// browser outside; nil is the system's opener (xdg-open, open, the
	// URL handler). Tests give a headless browser.
	OpenURL func(ctx context.Context, url string) error
	// CallbackWait is how long a login's callback port waits for its
	// request (default five minutes).
	CallbackWait time.Duration
}

// Daemon is a running daemon. It implements localapi.Backend.
type Daemon struct {
	cfg     Config
	started time.Time
	log     *proxy.Log
	ln      *safesocket.Listener
	asker   *dialogs.Asker
	bridges []bridges.Bridge

	mu        sync.Mutex // guards sandboxes
	sandboxes map[string]*sandbox

	watch watchers // in-process views: see Subscribe
}

func (c *Config) fill() error {
	if c.Paths == (apitype.Paths{}) {
		p, err := apitype.DefaultPaths()
		if err != nil {
			return err
		}
		c.Paths = p
	}
	if c.Socket == "" {
		c.Socket = safesocket.SocketPath(c.Paths.Runtime)
	}
	if c.LnkPath == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("daemon: cannot find the lnk program: %w", err)
		}
		c.LnkPath = exe
	}
	if c.Logf == nil {
		c.Logf = log.Printf
	}
	if c.WrapExpiry == 0 {
		c.WrapExpiry = 10 * time.Minute
	}
	if c.StopGrace == 0 {
		c.StopGrace = 3 * time.Second
	}
	if c.Keep == 0 {
		c.Keep = time.Hour
	}
	return nil
}

// Run runs the daemon until ctx ends. On the way out it closes every
// sandbox's proxy (their inits then end their commands) and removes the
// socket.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.fill(); err != nil {
		return err
	}
	if err := safesocket.PrivateDir(cfg.Paths.Runtime); err != nil {
		return fmt.Errorf("daemon: runtime folder: %w", err)
	}
	unlock, err := lockRuntime(cfg.Paths.Runtime)
	if err != nil {
		return err
	}
	defer unlock()
	// Nothing a predecessor left may serve a sandbox.
	if err := os.RemoveAll(filepath.Join(cfg.Paths.Runtime, "sb")); err != nil {
		return fmt.Errorf("daemon: clear old sandbox sockets: %w", err)
	}
	if err := safesocket.PrivateDir(cfg.Paths.State); err != nil {
		return fmt.Errorf("daemon: state folder: %w", err)
	}
	plog, err := proxy.OpenLog(cfg.Paths.LogDir())
	if err != nil {
		return err
	}
	defer plog.Close()
	ln, err := safesocket.Listen(cfg.Socket)
	if errors.Is(err, safesocket.ErrInUse) {
		return fmt.Errorf("%w (socket %s): use it, or stop it first", ErrRunning, cfg.Socket)
	}
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	d := &Daemon{cfg: cfg, started: time.Now(), log: plog, ln: ln, sandboxes: map[string]*sandbox{}}
	if d.asker, err = d.newAsker(); err != nil {
		ln.Close()
		return fmt.Errorf("daemon: %w", err)
	}
	d.bridges = d.bridgeList()
	if cfg.Ready != nil {
		cfg.Ready(d)
	}
	ln.OnRefuse = func(err error) { cfg.Logf("control socket: refused a peer: %v", err) }
	srv := &http.Server{
		Handler:           localapi.NewHandler(d),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(logWriter{cfg.Logf}, "", 0),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	go d.reap(ctx)
	cfg.Logf("daemon: pid %d serving %s", os.Getpid(), cfg.Socket)
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	srv.Close()
	d.closeAll()
	d.closeBridges()
	os.Remove(cfg.Socket)
	cfg.Logf("daemon: stopped")
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("daemon: serve: %w", err)
	}
	return nil
}

type logWriter struct{ logf func(string, ...any) }

func (w logWriter) Write(b []byte) (int, error) {
	w.logf("%s", b)
	return len(b), nil
}

// reap expires wrapped sandboxes that never started and forgets finished
// ones, until ctx ends.
func (d *Daemon) reap(ctx context.Context) {
	tick := time.NewTicker(min(d.cfg.WrapExpiry/4, 30*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			d.reapOnce(now)
		}
	}
}

// Status implements localapi.Backend.
func (d *Daemon) Status(context.Context) *apitype.Status {
	counts := map[string]int{}
	d.mu.Lock()
	for _, sb := range d.sandboxes {
		counts[sb.info.State]++
	}
	d.mu.Unlock()
	return &apitype.Status{
		Running:    true,
		Version:    d.cfg.Version,
		PID:        os.Getpid(),
		Socket:     d.cfg.Socket,
		RuntimeDir: d.cfg.Paths.Runtime,
		LogDir:     d.cfg.Paths.LogDir(),
		Started:    d.started,
		Counts:     counts,
		Refused:    d.ln.Refused(),
	}
}

// Log implements localapi.Backend.
func (d *Daemon) Log(ctx context.Context, sandbox string, follow bool, fn func(*apitype.LogRecord) error) error {
	return proxy.ReadLog(ctx, d.cfg.Paths.LogDir(), proxy.Filter{Sandbox: sandbox}, follow, func(r proxy.Record) error {
		return fn(&apitype.LogRecord{
			Time: r.Time, Sandbox: r.Sandbox, Proto: r.Proto, Host: r.Host, Port: r.Port, Addr: r.Addr,
			Decision: r.Decision, Rule: r.Rule, Up: r.Up, Down: r.Down, Duration: r.Duration, Error: r.Error,
		})
	})
}
