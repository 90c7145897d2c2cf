package daemon

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
)

// dialTimeout bounds a dial into a sandbox: the command on the session,
// init's connection inside, and its upgrade on the proxy.
const dialTimeout = 15 * time.Second

// dialResult is what init's dial brought: a connection or why not.
type dialResult struct {
	conn net.Conn
	err  error
}

// dials are a sandbox's dials waiting for init, by one-time token.
type dials struct {
	mu    sync.Mutex // guards waits
	waits map[string]chan dialResult
}

func (ds *dials) add(token string) chan dialResult {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.waits == nil {
		ds.waits = map[string]chan dialResult{}
	}
	ch := make(chan dialResult, 1)
	ds.waits[token] = ch
	return ch
}

// take removes and returns the wait for token, once.
func (ds *dials) take(token string) (chan dialResult, bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ch, ok := ds.waits[token]
	delete(ds.waits, token)
	return ch, ok
}

// dialInside returns the bridges' way into sb's own loopback: it asks
// init on the session to connect to host:port inside, and waits for init
// to bring the connection on the dial route (see confine.DialRoute).
func (d *Daemon) dialInside(sb *sandbox) func(ctx context.Context, host string, port int) (net.Conn, error) {
	return func(ctx context.Context, host string, port int) (net.Conn, error) {
		sess, err := d.sessionOf(sb)
		if err != nil {
			return nil, err
		}
		token := randomHex(16)
		ch := sb.dials.add(token)
		defer func() {
			// A connection that came as we gave up is closed, not lost.
			if late, ok := sb.dials.take(token); ok {
				select {
				case r := <-late:
					if r.conn != nil {
						r.conn.Close()
					}
				default:
				}
			}
		}()
		if err := sess.sendCommand(command{Cmd: "dial", Host: host, Port: port, Token: token}); err != nil {
			return nil, fmt.Errorf("cannot reach the sandbox's init: %v", err)
		}
		ctx, cancel := context.WithTimeout(ctx, dialTimeout)
		defer cancel()
		select {
		case r := <-ch:
			return r.conn, r.err
		case <-ctx.Done():
			return nil, fmt.Errorf("the sandbox's init did not connect to %s in time", net.JoinHostPort(host, fmt.Sprint(port)))
		case <-sb.done:
			return nil, errors.New("the sandbox ended")
		}
	}
}

// dialHandler serves the internal dial route: init brings the connection
// it made inside. Only init's own unix connection with a token the daemon
// sent it is taken.
func (d *Daemon) dialHandler(sb *sandbox) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.Header.Get("Upgrade") != "lnk-dial" {
			http.Error(w, "dial: upgrade to lnk-dial", http.StatusBadRequest)
			return
		}
		pid, _, _, ok := proxy.PeerCred(r.Context())
		d.mu.Lock()
		initPID := sb.info.InitPID
		d.mu.Unlock()
		if !ok || pid <= 0 || pid != initPID {
			d.cfg.Logf("sandbox %s: refused a dial not from its init (pid %d)", sb.info.ID, pid)
			http.Error(w, "dial: only the sandbox's init may", http.StatusForbidden)
			return
		}
		ch, ok := sb.dials.take(r.Header.Get("Lnk-Dial-Token"))
		if !ok {
			http.Error(w, "dial: no such dial, or it is over", http.StatusGone)
			return
		}
		if why := r.Header.Get("Lnk-Dial-Error"); why != "" {
			ch <- dialResult{err: errors.New(dialogs.Elide(why, 300))}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			ch <- dialResult{err: fmt.Errorf("dial: %v", err)}
			return
		}
		conn.SetDeadline(time.Time{})
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: lnk-dial\r\n\r\n")
		if err := brw.Flush(); err != nil {
			conn.Close()
			ch <- dialResult{err: fmt.Errorf("dial: %v", err)}
			return
		}
		ch <- dialResult{conn: &readerConn{Conn: conn, r: brw.Reader}}
	})
}

// readerConn reads through the bufio.Reader the HTTP server may have
// filled ahead.
type readerConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *readerConn) Read(b []byte) (int, error) { return c.r.Read(b) }
