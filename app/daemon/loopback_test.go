package daemon

import (
	"bufio"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestSharedLoopbackProxy: on macOS and Windows the proxy itself listens
// on 127.0.0.1:ProxyPort, answers only with the sandbox's secret, and
// stops listening when the sandbox is stopped.
func TestSharedLoopbackProxy(t *testing.T) {
	old := sharedLoopback
	sharedLoopback = true
	t.Cleanup(func() { sharedLoopback = old })
	td := startDaemon(t, Config{})
	resp, req := td.wrap("sleep", "9")
	addr := "127.0.0.1:" + strconv.Itoa(req.ProxyPort)
	health := func(secret string) (int, error) {
		c, err := net.DialTimeout("tcp4", addr, 2*time.Second)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		auth := base64.StdEncoding.EncodeToString([]byte(req.SandboxID + ":" + secret))
		io.WriteString(c, "GET http://lnk.sandbox/health HTTP/1.1\r\nHost: lnk.sandbox\r\nProxy-Authorization: Basic "+auth+"\r\nConnection: close\r\n\r\n")
		r, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0, err
		}
		r.Body.Close()
		return r.StatusCode, nil
	}
	if code, err := health(req.Secret); err != nil || code != http.StatusOK {
		t.Fatalf("health with the secret on %s: %d %v", addr, code, err)
	}
	if code, err := health("wrong"); err == nil && code == http.StatusOK {
		t.Fatalf("health with a wrong secret answered %d", code)
	}
	if _, err := td.c.Stop(t.Context(), resp.ID, false); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		c, err := net.DialTimeout("tcp4", addr, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if i > 100 {
			t.Fatalf("%s still accepts after stop", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
