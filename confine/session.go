package confine

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"
)

// proxyCreds reads the sandbox's credentials and port from HTTP_PROXY,
// which the wall sets (so no secret is on a command line).
func proxyCreds() (user, pass string, port int, err error) {
	u, err := url.Parse(os.Getenv("HTTP_PROXY"))
	if err != nil || u.User == nil || u.Port() == "" {
		return "", "", 0, errors.New("init: HTTP_PROXY does not carry the sandbox's proxy: run commands with lnk sandbox run or wrap")
	}
	pass, _ = u.User.Password()
	port, _ = strconv.Atoi(u.Port())
	return u.User.Username(), pass, port, nil
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
	c       net.Conn
	mu      sync.Mutex
	enc     *json.Encoder
	cmds    chan sessionCmd // closed when the daemon goes away
	network string          // the proxy's network and address, for dials
	addr    string
	user    string
	pass    string
	weak    bool           // the sandbox shares the computer's loopback: no dials
	dialing sync.WaitGroup // dials carrying a connection (see DialRoute)
}

// sessionCmd is one line the daemon sends: "stop", "pause", "resume", or
// "dial" with a host, port and token (see DialRoute).
type sessionCmd struct {
	Cmd   string `json:"cmd"`
	Host  string `json:"host,omitempty"`
	Port  int    `json:"port,omitempty"`
	Token string `json:"token,omitempty"`
}

// openSession asks the proxy for the daemon's session route directly on
// its socket (network "unix") or loopback port (network "tcp", macOS). A
// 404 means no daemon session: (nil, nil).
func openSession(network, addr, user, pass string) (*session, error) {
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the proxy at %s: %v", addr, err)
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
	s := &session{c: c, enc: json.NewEncoder(c), cmds: make(chan sessionCmd, 8),
		network: network, addr: addr, user: user, pass: pass}
	go s.read(br)
	return s, nil
}

func (s *session) read(br *bufio.Reader) {
	defer close(s.cmds)
	dec := json.NewDecoder(br)
	for {
		var m sessionCmd
		if err := dec.Decode(&m); err != nil {
			return
		}
		s.cmds <- m
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

func (s *session) commands() <-chan sessionCmd {
	if s == nil {
		return nil
	}
	return s.cmds
}

var errDaemonGone = errors.New("the daemon went away: the sandbox's network is gone")
