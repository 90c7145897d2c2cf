package confine

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// dialTimeout bounds the connection inside and the upgrade.
const dialTimeout = 10 * time.Second

// dialDrain is how long init, once its command has exited, waits for
// the dials under way to finish.
const dialDrain = 2 * time.Second

// startDial carries out a "dial" command (see DialRoute) on its own
// goroutine.
func (s *session) startDial(cmd sessionCmd) {
	s.dialing.Add(1)
	go func() {
		defer s.dialing.Done()
		s.dial(cmd)
	}()
}

// drainDials waits up to d for the dials under way to finish.
func (s *session) drainDials(d time.Duration) {
	if s == nil {
		return
	}
	done := make(chan struct{})
	go func() { s.dialing.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// dial carries a connection into the sandbox (see DialRoute).
func (s *session) dial(cmd sessionCmd) {
	in, derr := s.dialInside(cmd)
	if in != nil {
		defer in.Close()
	}
	up, err := net.DialTimeout(s.network, s.addr, dialTimeout)
	if err != nil {
		return
	}
	defer up.Close()
	_ = up.SetDeadline(time.Now().Add(dialTimeout))
	req := "GET http://lnk.sandbox/" + DialRoute + " HTTP/1.1\r\nHost: lnk.sandbox\r\nProxy-Authorization: " +
		basicAuth(s.user, s.pass) + "\r\nConnection: Upgrade\r\nUpgrade: lnk-dial\r\nLnk-Dial-Token: " + headerValue(cmd.Token) + "\r\n"
	if derr != "" {
		req += "Lnk-Dial-Error: " + headerValue(derr) + "\r\n"
	}
	if _, err := io.WriteString(up, req+"\r\n"); err != nil {
		return
	}
	br := bufio.NewReader(up)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return
	}
	resp.Body.Close()
	if derr != "" || resp.StatusCode != http.StatusSwitchingProtocols {
		return
	}
	_ = up.SetDeadline(time.Time{})
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(in, br); closeWrite(in); done <- struct{}{} }()
	go func() { _, _ = io.Copy(up, in); closeWrite(up); done <- struct{}{} }()
	<-done
	<-done
}

// dialInside connects to the command's host and port on the sandbox's
// loopback; localhost tries 127.0.0.1, then ::1. It returns why not.
func (s *session) dialInside(cmd sessionCmd) (net.Conn, string) {
	if s.weak {
		return nil, "this sandbox shares the computer's loopback: its callbacks need no relay"
	}
	if cmd.Port < 1 || cmd.Port > 65535 {
		return nil, "port " + strconv.Itoa(cmd.Port) + " is out of range"
	}
	var hosts []string
	switch cmd.Host {
	case "127.0.0.1", "::1":
		hosts = []string{cmd.Host}
	case "localhost":
		hosts = []string{"127.0.0.1", "::1"}
	default:
		return nil, "host " + strconv.Quote(cmd.Host) + " is not a loopback host"
	}
	var last error
	for _, h := range hosts {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(h, strconv.Itoa(cmd.Port)), dialTimeout)
		if err == nil {
			return c, ""
		}
		last = err
	}
	return nil, "nothing listens on " + net.JoinHostPort(cmd.Host, strconv.Itoa(cmd.Port)) + " in the sandbox: " + last.Error()
}

// headerValue keeps s to what a header line can carry.
func headerValue(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}
