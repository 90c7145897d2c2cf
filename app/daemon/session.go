package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/proxy"
)

// session is the connection to a sandbox's init. It is reserved (init
// set, conn nil) before the upgrade is answered, so a second upgrade is
// refused even while the first is under way. Lock order: Daemon.mu, then
// session.mu.
type session struct {
	init *os.Process // init, by pidfd on Linux: never a reused pid

	mu   sync.Mutex // guards conn and serialises commands
	conn net.Conn   // nil until the upgrade is answered
}

var errNoSession = errors.New("the session is not open")

// attach sets the upgraded connection.
func (s *session) attach(c net.Conn) {
	s.mu.Lock()
	s.conn = c
	s.mu.Unlock()
}

// open reports whether the upgrade has been answered.
func (s *session) open() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn != nil
}

// close closes the connection, if there is one.
func (s *session) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.conn.Close()
	}
}

// event is a line init sends.
type event struct {
	Event string `json:"event"` // start or exit
	PID   int    `json:"pid,omitempty"`
	Code  *int   `json:"code,omitempty"`
}

// command is a line the daemon sends.
type command struct {
	Cmd string `json:"cmd"` // stop, pause, resume or dial
	// Host, Port and Token are a dial's (see dial.go).
	Host  string `json:"host,omitempty"`
	Port  int    `json:"port,omitempty"`
	Token string `json:"token,omitempty"`
}

// maxEventLine bounds one line from init.
const maxEventLine = 4 << 10

// send writes one command to init.
func (s *session) send(cmd string) error { return s.sendCommand(command{Cmd: cmd}) }

// sendCommand writes one command line to init.
func (s *session) sendCommand(cmd command) error {
	b, _ := json.Marshal(cmd)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return errNoSession
	}
	s.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := s.conn.Write(append(b, '\n'))
	return err
}

// sessionHandler serves /session on a sandbox's proxy: the first upgrade
// is init's; see the package doc.
func (d *Daemon) sessionHandler(sb *sandbox) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.Header.Get("Upgrade") != "lnk-session" {
			http.Error(w, "session: upgrade to lnk-session", http.StatusBadRequest)
			return
		}
		pid, _, _, ok := proxy.PeerCred(r.Context())
		if !ok || pid <= 0 {
			http.Error(w, "session: open it on the proxy's unix socket", http.StatusForbidden)
			return
		}
		init, err := os.FindProcess(pid)
		if err != nil {
			http.Error(w, "session: init is gone", http.StatusGone)
			return
		}
		d.mu.Lock()
		taken := sb.sess != nil || sb.info.State != apitype.StateStarting
		if !taken {
			sb.sess = &session{init: init}
			sb.info.InitPID = pid
		}
		d.mu.Unlock()
		if taken {
			init.Release()
			http.Error(w, "session: this sandbox already has one", http.StatusConflict)
			return
		}
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			d.sessionEnded(sb, nil)
			return
		}
		conn.SetDeadline(time.Time{})
		sb.sess.attach(conn)
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: lnk-session\r\n\r\n")
		if err := brw.Flush(); err != nil {
			conn.Close()
			d.sessionEnded(sb, nil)
			return
		}
		d.cfg.Logf("sandbox %s: session open, init pid %d", sb.info.ID, pid)
		code := d.readEvents(sb, brw.Reader)
		conn.Close()
		d.sessionEnded(sb, code)
	})
}

// readEvents reads init's events until the connection ends and returns
// the exit code init reported, if it did.
func (d *Daemon) readEvents(sb *sandbox, r *bufio.Reader) *int {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 512), maxEventLine)
	var code *int
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			d.cfg.Logf("sandbox %s: bad session line: %v", sb.info.ID, err)
			continue
		}
		switch ev.Event {
		case "start":
			d.mu.Lock()
			if sb.info.State == apitype.StateStarting {
				sb.info.State = apitype.StateRunning
				sb.info.Started = time.Now()
			}
			d.mu.Unlock()
			d.changed(sb)
		case "exit":
			if ev.Code != nil {
				c := *ev.Code
				code = &c
			}
		default:
			d.cfg.Logf("sandbox %s: unknown session event %q", sb.info.ID, ev.Event)
		}
	}
	return code
}

// sessionEnded marks the sandbox finished: stopped if Stop asked for it,
// else exited with code (-1 if init never said).
func (d *Daemon) sessionEnded(sb *sandbox, code *int) {
	d.mu.Lock()
	if sb.stopping {
		sb.info.State = apitype.StateStopped
	} else {
		sb.info.State = apitype.StateExited
		if code == nil {
			c := -1
			code = &c
		}
	}
	sb.info.ExitCode = code
	state := sb.info.State
	d.mu.Unlock()
	d.cfg.Logf("sandbox %s: session ended: %s", sb.info.ID, state)
	d.finish(sb)
	d.changed(sb)
}

// sessionOf returns the open session of sb, or an error saying why there
// is none.
func (d *Daemon) sessionOf(sb *sandbox) (*session, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if sb.sess == nil || !sb.sess.open() || !sb.finished.IsZero() {
		return nil, apitype.Errorf(apitype.CodeConflict, fmt.Sprintf("sandbox %s is %s: nothing runs in it", sb.info.ID, sb.info.State))
	}
	return sb.sess, nil
}
