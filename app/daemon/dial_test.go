package daemon

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDialRouteOnlyFromInit: the dial route takes no connection but
// init's own, whatever token it carries, and a dial sends init the dial
// command.
func TestDialRouteOnlyFromInit(t *testing.T) {
	got := make(chan *Daemon, 1)
	td := startDaemon(t, Config{Ready: func(d *Daemon) { got <- d }})
	d := <-got
	resp, req := td.wrap("sleep", "100")
	fp, _ := fakeInitProc(t, req, "polite")
	td.waitState(resp.ID, "running")
	sb, err := d.get(resp.ID)
	if err != nil {
		t.Fatal(err)
	}
	// A dial waits for init: the fake init gets the command and never
	// brings the connection.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		c, err := d.dialInside(sb)(ctx, "127.0.0.1", 8085)
		if c != nil {
			c.Close()
		}
		errc <- err
	}()
	fp.expect(t, "dial")
	sb.dials.mu.Lock()
	var token string
	for k := range sb.dials.waits {
		token = k
	}
	sb.dials.mu.Unlock()
	if token == "" {
		t.Fatal("no dial is waiting")
	}
	// This process is not init: even with the credentials and the token
	// the route refuses it, and the dial still waits.
	c, err := net.Dial("unix", req.ProxySocket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	auth := base64.StdEncoding.EncodeToString([]byte(req.SandboxID + ":" + req.Secret))
	fmt.Fprintf(c, "GET http://lnk.sandbox/dial HTTP/1.1\r\nHost: lnk.sandbox\r\nProxy-Authorization: Basic %s\r\nConnection: Upgrade\r\nUpgrade: lnk-dial\r\nLnk-Dial-Token: %s\r\n\r\n", auth, token)
	r, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden {
		t.Errorf("a dial from another process: %s, want 403", r.Status)
	}
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "did not connect") && !strings.Contains(err.Error(), "deadline") {
		t.Errorf("the dial ended with %v", err)
	}
	sb.dials.mu.Lock()
	left := len(sb.dials.waits)
	sb.dials.mu.Unlock()
	if left != 0 {
		t.Errorf("%d dials left waiting", left)
	}
}
