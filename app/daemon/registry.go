package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/safesocket"
	"lnk.dev/sandbox/confine"
	"lnk.dev/sandbox/proxy"
	"lnk.dev/sandbox/spec"
)

// sandbox is one registry entry. info, sess and stopping are guarded by
// Daemon.mu; the rest is set once in Wrap.
type sandbox struct {
	info     apitype.Sandbox
	secret   string
	dir      string // sb/<id>: the proxy socket's folder
	proxy    *proxy.Proxy
	ln       net.Listener
	sess     *session // nil until init opens it
	stopping bool     // Stop was asked: a dropped session means stopped
	finished time.Time
	done     chan struct{} // closed when the sandbox is finished
	once     sync.Once
	dials    dials // dials into the sandbox waiting for init
}

// randomHex returns n random bytes as hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics rather than return an error)
	return hex.EncodeToString(b)
}

// Wrap implements localapi.Backend: it registers a sandbox, starts its
// proxy, and returns the command that runs req.Argv inside it.
func (d *Daemon) Wrap(ctx context.Context, req *apitype.WrapRequest) (*apitype.WrapResponse, error) {
	pol := *req.Policy
	d.hideOwnDirs(&pol)
	id := randomHex(6)
	sb := &sandbox{
		info: apitype.Sandbox{
			ID: id, Name: req.Name, Spec: pol.Source, Folder: pol.Folder,
			Argv: req.Argv, Created: time.Now(), State: apitype.StateStarting,
		},
		secret: randomHex(32),
		dir:    d.cfg.Paths.SandboxDir(id),
		done:   make(chan struct{}),
	}
	if sb.info.Name == "" {
		sb.info.Name = filepath.Base(req.Argv[0])
	}
	if err := d.startProxy(sb, &pol); err != nil {
		return nil, err
	}
	port, err := d.wallPort(sb)
	if err != nil {
		d.finish(sb)
		return nil, err
	}
	cmd, err := wallWrap(&wallRequest{
		Policy: &pol, Argv: req.Argv, Env: req.Env, Dir: req.Dir,
		SandboxID: id, Secret: sb.secret, LnkPath: d.cfg.LnkPath,
		ProxySocket: filepath.Join(sb.dir, "proxy.sock"), ProxyPort: port,
		KeepSession: req.KeepSession,
	})
	if err != nil {
		d.finish(sb)
		return nil, apitype.Errorf(apitype.CodeUnavailable, err.Error())
	}
	d.mu.Lock()
	d.sandboxes[id] = sb
	d.mu.Unlock()
	d.changed(sb)
	d.cfg.Logf("sandbox %s: wrapped %q (spec %s, folder %s)", id, req.Argv, pol.Source, pol.Folder)
	return &apitype.WrapResponse{ID: id, Argv: cmd.Argv, Env: cmd.Env, Dir: cmd.Dir}, nil
}

// proxyPort picks the loopback port inside a sandbox that init relays to
// the proxy: each sandbox has its own loopback, so it need only be unlikely
// to clash with a server the command starts itself.
func proxyPort() int {
	b := make([]byte, 2)
	rand.Read(b)
	return 30000 + (int(b[0])<<8|int(b[1]))%20000
}

// hideOwnDirs makes sure the daemon's own folders are among the policy's
// lnk dirs and hidden, whatever the caller's environment named.
func (d *Daemon) hideOwnDirs(p *spec.Policy) {
	p.Link = append([]string(nil), p.Link...)
	p.Hidden = append([]spec.Path(nil), p.Hidden...)
	for _, dir := range []string{d.cfg.Paths.Runtime, d.cfg.Paths.State} {
		real := dir
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			real = r
		}
		for _, x := range []string{dir, real} {
			if !underAny(x, p.Link) {
				p.Link = append(p.Link, x)
				p.Hidden = append(p.Hidden, spec.Path{Path: x, Dir: true, Exists: true, From: "lnk"})
			}
		}
	}
}

func underAny(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}

// startProxy makes the sandbox's folder and socket and serves its proxy.
func (d *Daemon) startProxy(sb *sandbox, pol *spec.Policy) error {
	if err := safesocket.PrivateDir(sb.dir); err != nil {
		return err
	}
	sock := filepath.Join(sb.dir, "proxy.sock")
	if len(sock) > safesocket.MaxPathLen {
		os.RemoveAll(sb.dir)
		return fmt.Errorf("proxy socket path %s is too long: set XDG_RUNTIME_DIR to a short folder", sock)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(sb.dir)
		return fmt.Errorf("proxy socket: %w", err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		os.RemoveAll(sb.dir)
		return fmt.Errorf("proxy socket: %w", err)
	}
	p, err := proxy.New(proxy.Config{
		SandboxID: sb.info.ID,
		Secret:    sb.secret,
		Network:   pol.Network,
		Log:       proxy.NewLog(&logTap{d: d, sb: sb}),
	})
	if err != nil {
		ln.Close()
		os.RemoveAll(sb.dir)
		return err
	}
	p.Handle("session", "", d.sessionHandler(sb))
	p.Handle(confine.DialRoute, "", d.dialHandler(sb))
	sb.proxy, sb.ln = p, ln
	d.registerBridges(sb, pol)
	go p.Serve(ln)
	return nil
}

// finish closes a sandbox's proxy and removes its folder, once.
func (d *Daemon) finish(sb *sandbox) {
	sb.once.Do(func() {
		if sb.proxy != nil {
			sb.proxy.Close()
		}
		os.RemoveAll(sb.dir)
		d.mu.Lock()
		sb.finished = time.Now()
		d.mu.Unlock()
		close(sb.done)
	})
}

// List implements localapi.Backend.
func (d *Daemon) List(context.Context) []apitype.Sandbox {
	d.mu.Lock()
	out := make([]apitype.Sandbox, 0, len(d.sandboxes))
	for _, sb := range d.sandboxes {
		out = append(out, sb.info)
	}
	d.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}

// get returns the sandbox id or a not-found error.
func (d *Daemon) get(id string) (*sandbox, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	sb, ok := d.sandboxes[id]
	if !ok {
		return nil, apitype.Errorf(apitype.CodeNotFound, fmt.Sprintf("no sandbox %q: see 'lnk sandbox list'", id))
	}
	return sb, nil
}

// reapOnce expires sandboxes wrapped before the expiry that never started,
// and forgets those finished longer than Keep ago.
func (d *Daemon) reapOnce(now time.Time) {
	var expired, forgotten []*sandbox
	d.mu.Lock()
	for id, sb := range d.sandboxes {
		switch {
		case sb.info.State == apitype.StateStarting && sb.sess == nil && now.Sub(sb.info.Created) > d.cfg.WrapExpiry:
			sb.info.State = apitype.StateExited
			expired = append(expired, sb)
		case !sb.finished.IsZero() && now.Sub(sb.finished) > d.cfg.Keep:
			delete(d.sandboxes, id)
			forgotten = append(forgotten, sb)
		}
	}
	d.mu.Unlock()
	for _, sb := range expired {
		d.cfg.Logf("sandbox %s: expired (wrapped, never started)", sb.info.ID)
		d.finish(sb)
		d.changed(sb)
	}
	for _, sb := range forgotten {
		d.publish(sb, apitype.EventChanged, "", true)
	}
}

// closeAll closes every sandbox's proxy (daemon shutdown).
func (d *Daemon) closeAll() {
	d.mu.Lock()
	all := make([]*sandbox, 0, len(d.sandboxes))
	for _, sb := range d.sandboxes {
		all = append(all, sb)
	}
	d.mu.Unlock()
	for _, sb := range all {
		d.mu.Lock()
		sess := sb.sess
		d.mu.Unlock()
		if sess != nil {
			sess.close()
		}
		d.finish(sb)
	}
}
