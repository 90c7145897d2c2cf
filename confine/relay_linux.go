package confine

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// relay accepts on the sandbox's loopback proxy port and passes each
// connection to the proxy's unix socket. It is ours: no socat.
type relay struct {
	socket string
	ls     []net.Listener
	wg     sync.WaitGroup
}

// startRelay listens on 127.0.0.1:port and [::1]:port. IPv6 is skipped
// only where the namespace has no ::1.
func startRelay(port int, socket string) (*relay, error) {
	r := &relay{socket: socket}
	l4, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return nil, fmt.Errorf("relay: cannot listen on 127.0.0.1:%d inside the sandbox: %v", port, err)
	}
	r.ls = append(r.ls, l4)
	if l6, err := net.Listen("tcp6", "[::1]:"+strconv.Itoa(port)); err == nil {
		r.ls = append(r.ls, l6)
	}
	for _, l := range r.ls {
		r.wg.Add(1)
		go r.serve(l)
	}
	return r, nil
}

func (r *relay) serve(l net.Listener) {
	defer r.wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go r.pass(c)
	}
}

// handOffByte is the proxy's HandOffByte: sent with the client's socket
// attached, and answered by the proxy once it has taken the socket.
const handOffByte = 0x00

// pass hands the connection c to the proxy: its socket itself when the
// proxy takes it (so the data crosses the proxy alone, not the relay
// too), else by copying both ways.
func (r *relay) pass(c net.Conn) {
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok && r.handOff(tc) {
		return // the proxy holds the socket now; closing ours ends nothing
	}
	up, err := net.Dial("unix", r.socket)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
	<-done
	<-done
}

// handOff sends c's socket to the proxy (SCM_RIGHTS) on a new connection
// and reports whether the proxy took it. A proxy that does not know the
// hand-off sees one byte and the end of the stream, and answers otherwise.
func (r *relay) handOff(c *net.TCPConn) bool {
	up, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: r.socket, Net: "unix"})
	if err != nil {
		return false
	}
	defer up.Close()
	rc, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var werr error
	if err := rc.Control(func(fd uintptr) {
		_, _, werr = up.WriteMsgUnix([]byte{handOffByte}, unix.UnixRights(int(fd)), nil)
	}); err != nil || werr != nil {
		return false
	}
	_ = up.CloseWrite()
	_ = up.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [1]byte
	n, err := up.Read(b[:])
	return err == nil && n == 1 && b[0] == handOffByte
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

func (r *relay) close() {
	for _, l := range r.ls {
		l.Close()
	}
}

// checkHealth asks the proxy for http://lnk.sandbox/health through the
// relay, as the command's programs will reach it.
func checkHealth(port int, user, pass string) error {
	c, err := net.DialTimeout("tcp4", "127.0.0.1:"+strconv.Itoa(port), 5*time.Second)
	if err != nil {
		return fmt.Errorf("the relay does not answer: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	req := "GET http://lnk.sandbox/health HTTP/1.1\r\nHost: lnk.sandbox\r\nProxy-Authorization: " +
		basicAuth(user, pass) + "\r\nConnection: close\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		return fmt.Errorf("the proxy does not answer: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return fmt.Errorf("the proxy does not answer: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64))
	if resp.StatusCode != http.StatusOK || string(body) != "ok" {
		return fmt.Errorf("the proxy's health check answered %q", resp.Status)
	}
	return nil
}

// session is init's connection to the daemon; nil when there is none.
type session struct {
	c    net.Conn
	mu   sync.Mutex
	enc  *json.Encoder
	cmds chan string // "stop", "pause", "resume"; closed when the daemon goes away
}

// openSession asks the proxy for the daemon's session route directly on
// the socket. A 404 means no daemon session: (nil, nil).
func openSession(socket, user, pass string) (*session, error) {
	c, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the proxy's socket: %v", err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	req := "GET http://lnk.sandbox/session HTTP/1.1\r\nHost: lnk.sandbox\r\nProxy-Authorization: " +
		basicAuth(user, pass) + "\r\nConnection: Upgrade\r\nUpgrade: lnk-session\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("the session request failed: %v", err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("the session request failed: %v", err)
	}
	switch resp.StatusCode {
	case http.StatusNotFound:
		resp.Body.Close()
		c.Close()
		return nil, nil
	case http.StatusSwitchingProtocols:
	default:
		resp.Body.Close()
		c.Close()
		return nil, fmt.Errorf("the daemon refused the session: %s", resp.Status)
	}
	_ = c.SetDeadline(time.Time{})
	s := &session{c: c, enc: json.NewEncoder(c), cmds: make(chan string, 8)}
	go s.read(br)
	return s, nil
}

func (s *session) read(br *bufio.Reader) {
	defer close(s.cmds)
	dec := json.NewDecoder(br)
	for {
		var m struct {
			Cmd string `json:"cmd"`
		}
		if err := dec.Decode(&m); err != nil {
			return
		}
		s.cmds <- m.Cmd
	}
}

// send writes one event line; errors are the reader's to notice.
func (s *session) send(v any) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_ = s.enc.Encode(v)
}

func (s *session) commands() <-chan string {
	if s == nil {
		return nil
	}
	return s.cmds
}

var errDaemonGone = errors.New("the daemon went away: the sandbox's network is gone")
