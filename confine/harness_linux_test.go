package confine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
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
	"lnk.dev/sandbox/spec"
)

// lnkBinary is the lnk built once for the run (or LNK_TEST_BINARY, for a
// compiled test binary run as another user).
var lnkBinary string

func TestMain(m *testing.M) {
	if v := os.Getenv("LNK_VICTIM"); v != "" {
		os.Exit(runVictim(v, os.Stdout))
	}
	code := func() int {
		if p := os.Getenv("LNK_TEST_BINARY"); p != "" {
			lnkBinary = p
			return m.Run()
		}
		dir, err := os.MkdirTemp("", "lnk-confine-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		if err := os.Chmod(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		lnkBinary = filepath.Join(dir, "lnk")
		out, err := exec.Command("go", "build", "-o", lnkBinary, "lnk.dev/sandbox/app/lnk").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "building lnk: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

const (
	testID     = "sbx-test"
	testSecret = "s3cret-pass"
)

// fakeProxy stands for engineer B's proxy: on a unix socket it answers
// /health, refuses /session (no daemon) unless session is set, and opens
// CONNECT tunnels to loopback addresses only.
type fakeProxy struct {
	socket   string
	srv      *http.Server
	mu       sync.Mutex
	connects []string
	session  func(c net.Conn, br *bufio.ReadWriter) // daemon side of a session, or nil
	health   int                                    // status for /health; 0 = 200
	opened   []string                               // bodies POSTed to /open (denied, each)
}

func (p *fakeProxy) setHealth(code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.health = code
}

func (p *fakeProxy) setSession(f func(c net.Conn, br *bufio.ReadWriter)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.session = f
}

func (p *fakeProxy) state() (int, func(c net.Conn, br *bufio.ReadWriter)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.health, p.session
}

func startFakeProxy(t *testing.T) *fakeProxy {
	t.Helper()
	dir, err := os.MkdirTemp("", "lnk-px-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := &fakeProxy{socket: filepath.Join(dir, "proxy.sock")}
	l, err := net.Listen("unix", p.socket)
	if err != nil {
		t.Fatal(err)
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(l) }()
	t.Cleanup(func() { p.srv.Close() })
	return p
}

func (p *fakeProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(testID+":"+testSecret))
	if r.Header.Get("Proxy-Authorization") != want {
		http.Error(w, "proxy credentials needed", http.StatusProxyAuthRequired)
		return
	}
	health, session := p.state()
	switch {
	case r.Method == http.MethodConnect:
		p.connect(w, r)
	case r.URL.Host == "lnk.sandbox" && r.URL.Path == "/health":
		if health != 0 {
			w.WriteHeader(health)
			return
		}
		_, _ = io.WriteString(w, "ok")
	case r.URL.Host == "lnk.sandbox" && r.URL.Path == "/open" && r.Method == http.MethodPost:
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		p.mu.Lock()
		p.opened = append(p.opened, string(body))
		p.mu.Unlock()
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"outcome":"denied","message":"the page was not opened: the test says no"}`)
	case r.URL.Host == "lnk.sandbox" && r.URL.Path == "/session" && session != nil:
		c, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		_, _ = io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: lnk-session\r\n\r\n")
		session(c, brw)
	default:
		http.NotFound(w, r)
	}
}

func (p *fakeProxy) connect(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.connects = append(p.connects, r.Host)
	p.mu.Unlock()
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil || (host != "127.0.0.1" && host != "localhost") {
		http.Error(w, "only loopback in tests", http.StatusForbidden)
		return
	}
	up, err := net.Dial("tcp", r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	c, brw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		up.Close()
		return
	}
	_, _ = io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	go func() { _, _ = io.Copy(up, brw); _ = up.(*net.TCPConn).CloseWrite() }()
	_, _ = io.Copy(c, up)
	c.Close()
}

// box is one test sandbox: a home with secrets, a folder, a spec.
type box struct {
	t      *testing.T
	home   string
	folder string
	proxy  *fakeProxy
	spec   string // TOML; "" = allow_write ["."]
	keep   bool
	weak   bool // Request.Weak, on port
	port   int  // the proxy port; 0 = 3128
}

func newBox(t *testing.T) *box {
	t.Helper()
	testenv.NeedBwrap(t)
	return newBareBox(t)
}

// newBareBox is newBox without asking for bwrap (the weak mode's tests).
func newBareBox(t *testing.T) *box {
	t.Helper()
	// Not under /tmp: the sandbox has a /tmp of its own, which would hide
	// a home there and make every write outside look allowed.
	base := os.Getenv("LNK_TEST_ROOT")
	if base == "" {
		base = "/var/tmp"
	}
	root, err := os.MkdirTemp(base, "lnk-confine-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	b := &box{t: t, home: filepath.Join(root, "home"), folder: filepath.Join(root, "home", "work")}
	for _, d := range []string{b.folder, filepath.Join(b.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(b.home, ".ssh", "id_ed25519"), "PRIVATE KEY")
	writeFile(t, filepath.Join(b.home, "notes.txt"), "home notes")
	b.proxy = startFakeProxy(t)
	return b
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (b *box) policy() *spec.Policy {
	b.t.Helper()
	text := b.spec
	if text == "" {
		text = "[filesystem]\nallow_write = [\".\"]\n"
	}
	s, err := spec.Parse("test.toml", []byte(text))
	if err != nil {
		b.t.Fatal(err)
	}
	env := spec.Env{Home: b.home, Folder: b.folder, Path: "/usr/bin:/bin",
		Link: spec.DefaultLinkDirs(b.home, "", "", "", "")}
	p, err := spec.Resolve(s, "test.toml", env)
	if err != nil {
		b.t.Fatal(err)
	}
	return p
}

func (b *box) request(argv ...string) *Request {
	return &Request{
		Policy: b.policy(), Argv: argv,
		Env:       []string{"PATH=/usr/bin:/bin", "HOME=" + b.home, "LANG=C"},
		SandboxID: testID, Secret: testSecret, LnkPath: lnkBinary,
		ProxySocket: b.proxy.socket, ProxyPort: b.proxyPort(), KeepSession: b.keep, Weak: b.weak,
	}
}

func (b *box) proxyPort() int {
	if b.port == 0 {
		return 3128
	}
	return b.port
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs argv in the sandbox with stdin and a time limit.
func (b *box) run(stdin string, argv ...string) result {
	b.t.Helper()
	cmd, err := Wrap(b.request(argv...))
	if err != nil {
		b.t.Fatalf("Wrap: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, cmd.Argv[0], cmd.Argv[1:]...)
	c.Env, c.Dir = cmd.Env, cmd.Dir
	c.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err = c.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		b.t.Fatalf("run: %v", err)
	}
	return result{code, out.String(), errb.String()}
}

// victim puts a copy of the test binary in the folder and runs the named
// victim with it in the sandbox.
func (b *box) victim(name string, env ...string) string {
	b.t.Helper()
	self, err := os.Executable()
	if err != nil {
		b.t.Fatal(err)
	}
	dst := filepath.Join(b.folder, "victim.bin")
	if _, err := os.Stat(dst); err != nil {
		if err := os.Link(self, dst); err != nil {
			data, err := os.ReadFile(self)
			if err != nil {
				b.t.Fatal(err)
			}
			if err := os.WriteFile(dst, data, 0o755); err != nil {
				b.t.Fatal(err)
			}
		}
	}
	args := append([]string{"/usr/bin/env", "LNK_VICTIM=" + name}, env...)
	r := b.run("", append(args, dst)...)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "DENIED") && !strings.HasPrefix(r.stdout, "ALLOWED") {
		b.t.Fatalf("victim %s did not run: %+v", name, r)
	}
	return strings.TrimSpace(r.stdout)
}

// sh runs a shell script in the sandbox.
func (b *box) sh(script string) result {
	b.t.Helper()
	return b.run("", "/bin/sh", "-c", script)
}
