//go:build linux

package proxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tcpPair returns both ends of a loopback TCP connection: the client's and
// the accepted one (which a relay would hand off).
func tcpPair(t *testing.T) (client, accepted *net.TCPConn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); a.Close() })
	return c.(*net.TCPConn), a.(*net.TCPConn)
}

// sendHandOff writes first with fds attached on a new connection to the
// proxy's unix socket and returns the proxy's answer byte (or an error).
func sendHandOff(t *testing.T, sock string, first byte, fds ...int) (byte, error) {
	t.Helper()
	up, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	if _, _, err := up.WriteMsgUnix([]byte{first}, oob, nil); err != nil {
		t.Fatal(err)
	}
	up.CloseWrite()
	up.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [1]byte
	_, err = io.ReadFull(up, b[:])
	return b[0], err
}

func socketFD(t *testing.T, c *net.TCPConn) int {
	t.Helper()
	f, err := c.File() // a dup, closed by the test
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return int(f.Fd())
}

// TestHandOff hands a client's TCP socket to the proxy, as init's relay
// does, and checks the proxy serves that client directly.
func TestHandOff(t *testing.T) {
	e := startProxy(t, loopPolicy(t), nil)
	client, accepted := tcpPair(t)
	ack, err := sendHandOff(t, e.sock, HandOffByte, socketFD(t, accepted))
	if err != nil || ack != HandOffByte {
		t.Fatalf("hand-off not taken: ack %#x, %v", ack, err)
	}
	accepted.Close() // the relay's copy; the proxy holds its own
	req, _ := http.NewRequest("GET", "http://"+OwnHost+"/health", nil)
	req.Header.Set("Proxy-Authorization", "Basic "+basic(testID, testSecret))
	client.SetDeadline(time.Now().Add(5 * time.Second))
	if err := req.WriteProxy(client); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(client), req)
	if err != nil {
		t.Fatalf("no answer on the handed-off socket: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != "ok" {
		t.Fatalf("health through the handed-off socket: %d %q", resp.StatusCode, body)
	}
	// Without credentials the handed-off client is refused like any other.
	client2, accepted2 := tcpPair(t)
	if ack, err := sendHandOff(t, e.sock, HandOffByte, socketFD(t, accepted2)); err != nil || ack != HandOffByte {
		t.Fatalf("second hand-off: %#x %v", ack, err)
	}
	accepted2.Close()
	req2, _ := http.NewRequest("GET", "http://"+OwnHost+"/health", nil)
	client2.SetDeadline(time.Now().Add(5 * time.Second))
	req2.WriteProxy(client2)
	resp2, err := http.ReadResponse(bufio.NewReader(client2), req2)
	if err != nil || resp2.StatusCode != http.StatusProxyAuthRequired {
		t.Fatalf("handed-off client without credentials: %v %v", resp2, err)
	}
}

// TestHandOffRefused sends what is not one TCP socket behind HandOffByte:
// each is refused, logged, and leaves no descriptor behind in the proxy.
func TestHandOffRefused(t *testing.T) {
	e := startProxy(t, loopPolicy(t), nil)
	file, err := os.CreateTemp(t.TempDir(), "f")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	_, a1 := tcpPair(t)
	_, a2 := tcpPair(t)
	before := countFDs(t)
	cases := []struct {
		name  string
		first byte
		fds   []int
	}{
		{"marker without a socket", HandOffByte, nil},
		{"a regular file", HandOffByte, []int{int(file.Fd())}},
		{"two sockets", HandOffByte, []int{socketFD(t, a1), socketFD(t, a2)}},
		{"a socket behind another byte", 'G', []int{socketFD(t, a1)}},
	}
	before += 3 // the dups socketFD made above
	for _, c := range cases {
		ack, err := sendHandOff(t, e.sock, c.first, c.fds...)
		if err == nil && ack == HandOffByte {
			t.Errorf("%s: the proxy took it", c.name)
		}
	}
	e.log.waitRecord(t, func(r Record) bool { return strings.HasPrefix(r.Rule, "bad hand-off") })
	deadline := time.Now().Add(5 * time.Second)
	for countFDs(t) > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := countFDs(t); n > before {
		t.Errorf("%d descriptors left open after refused hand-offs (before %d)", n, before)
	}
}
