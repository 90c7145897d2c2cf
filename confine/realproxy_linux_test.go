package confine_test

// This test runs the wall against the real proxy (package proxy). Only
// the test links it: confine itself never imports proxy.

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"lnk.dev/sandbox/build/testenv"
	"lnk.dev/sandbox/confine"
	"lnk.dev/sandbox/proxy"
	"lnk.dev/sandbox/spec"
)

func TestThroughRealProxy(t *testing.T) {
	testenv.NeedBwrap(t)
	testenv.NeedCommand(t, "curl", "curl")
	root, err := os.MkdirTemp("/var/tmp", "lnk-realproxy-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	home, folder := filepath.Join(root, "home"), filepath.Join(root, "home", "work")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	// An outside server on the host's loopback, which the spec allows.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hello through the real proxy")
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	// An echo server for lnk sandbox connect: send, half-close, read.
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		c, err := echo.Accept()
		if err == nil {
			_, _ = io.Copy(c, c)
			c.Close()
		}
	}()
	text := "[filesystem]\nallow_write = [\".\"]\n[network]\nhosts = []\n[network.lan]\nallow = [\"" + l.Addr().String() + "\", \"" + echo.Addr().String() + "\"]\n"
	s, err := spec.Parse("real.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.Resolve(s, "real.toml", spec.Env{Home: home, Folder: folder, Path: "/usr/bin:/bin",
		Link: spec.DefaultLinkDirs(home, "", "", "", "")})
	if err != nil {
		t.Fatal(err)
	}
	sock, logBuf := startRealProxy(t, root, p)
	run := func(script string) (string, int) {
		cmd, err := confine.Wrap(&confine.Request{Policy: p, Argv: []string{"/bin/sh", "-c", script},
			Env: []string{"PATH=/usr/bin:/bin", "HOME=" + home}, SandboxID: "real", Secret: "real-secret",
			LnkPath: confine.LnkBinaryForTest(), ProxySocket: sock, ProxyPort: 8080})
		if err != nil {
			t.Fatal(err)
		}
		c := exec.Command(cmd.Argv[0], cmd.Argv[1:]...)
		c.Env, c.Dir = cmd.Env, cmd.Dir
		out, _ := c.Output()
		return string(out), c.ProcessState.ExitCode()
	}
	url := "http://" + l.Addr().String() + "/"
	if out, code := run("curl -sS --noproxy '' --max-time 10 " + url); code != 0 || out != "hello through the real proxy" {
		t.Fatalf("allowed address: %q exit %d", out, code)
	}
	if out, code := run("curl -sS --noproxy '' -p --max-time 10 " + url); code != 0 || out != "hello through the real proxy" {
		t.Fatalf("allowed address through CONNECT: %q exit %d", out, code)
	}
	if _, code := run("curl -sS --noproxy '' -p --max-time 10 http://127.0.0.1:1/"); code == 0 {
		t.Fatal("an address the spec does not allow was reached")
	}
	_, eport, _ := net.SplitHostPort(echo.Addr().String())
	if out, code := run("printf ping | " + confine.InnerLnk + " sandbox connect 127.0.0.1 " + eport); code != 0 || out != "ping" {
		t.Errorf("connect through the real proxy: %q exit %d", out, code)
	}
	if !strings.Contains(logBuf.String(), l.Addr().String()[strings.LastIndex(l.Addr().String(), ":")+1:]) {
		t.Errorf("the proxy's log does not show the connection:\n%s", logBuf.String())
	}
}

// startRealProxy serves package proxy on a unix socket until the test
// ends, logging into the returned buffer.
func startRealProxy(t *testing.T, root string, p *spec.Policy) (string, *lockedBuffer) {
	t.Helper()
	logBuf := &lockedBuffer{}
	px, err := proxy.New(proxy.Config{SandboxID: "real", Secret: "real-secret", Network: p.Network, Log: proxy.NewLog(logBuf)})
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(root, "proxy.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = px.Serve(ul) }()
	t.Cleanup(func() { px.Close() })

	return sock, logBuf
}

// lockedBuffer is a log sink the proxy writes from its goroutines while
// the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
