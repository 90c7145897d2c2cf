package proxy

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"lnk.dev/sandbox/build/testenv"
)

// cleanEnv is an environment with no proxy variables, so clients use only
// the proxy a test names.
func cleanEnv(home string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}
}

func runCurl(t *testing.T, args ...string) (string, error) {
	t.Helper()
	curl := testenv.NeedCommand(t, "curl", "curl")
	cmd := exec.Command(curl, append([]string{"-sS", "--max-time", "10"}, args...)...)
	cmd.Env = cleanEnv(t.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestCurl(t *testing.T) {
	e := startProxy(t, loopPolicy(t), nil)
	_, port := upstream(t, hello())
	tlsSrv := httptest.NewTLSServer(hello())
	defer tlsSrv.Close()
	_, tport, _ := net.SplitHostPort(tlsSrv.Listener.Addr().String())
	px := "http://" + e.tcp
	user := testID + ":" + testSecret
	socks := "socks5h://" + user + "@" + e.tcp
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"http proxy", []string{"-x", px, "--proxy-user", user, "http://web.lnk.test:" + port + "/a"}, "hello web.lnk.test:" + port + " /a"},
		{"connect tls", []string{"-k", "-x", px, "--proxy-user", user, "https://secure.lnk.test:" + tport + "/b"}, "hello secure.lnk.test:" + tport + " /b"},
		{"socks5h", []string{"-x", socks, "http://web.lnk.test:" + port + "/c"}, "hello web.lnk.test:" + port + " /c"},
		{"--socks5-hostname", []string{"--socks5-hostname", e.tcp, "--proxy-user", user, "http://web.lnk.test:" + port + "/e"}, "hello web.lnk.test:" + port + " /e"},
		{"socks5h tls", []string{"-k", "-x", socks, "https://secure.lnk.test:" + tport + "/d"}, "/d"},
		{"health", []string{"-x", px, "--proxy-user", user, "http://lnk.sandbox/health"}, "ok"},
		{"no credentials", []string{"-o", "/dev/null", "-w", "%{http_code}", "-x", px, "http://web.lnk.test:" + port + "/"}, "407"},
		{"wrong credentials", []string{"-o", "/dev/null", "-w", "%{http_code}", "-x", px, "--proxy-user", testID + ":nope", "http://web.lnk.test:" + port + "/"}, "407"},
		{"denied host", []string{"-o", "/dev/null", "-w", "%{http_code}", "-x", px, "--proxy-user", user, "http://blocked.lnk.test:" + port + "/"}, "403"},
		{"unlisted host", []string{"-o", "/dev/null", "-w", "%{http_code}", "-x", px, "--proxy-user", user, "http://web.lnk.other:" + port + "/"}, "403"},
		{"ip spelling", []string{"-o", "/dev/null", "-w", "%{http_code}", "-x", px, "--proxy-user", user, "http://0x7f000002:" + port + "/"}, "403"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runCurl(t, c.args...)
			if err != nil || !strings.Contains(out, c.want) {
				t.Fatalf("curl: %v\n%s\nwant %q", err, out, c.want)
			}
		})
	}
	// SOCKS5 with a wrong password and to a refused host: curl fails.
	if out, err := runCurl(t, "-x", "socks5h://"+testID+":nope@"+e.tcp, "http://web.lnk.test:"+port+"/"); err == nil {
		t.Fatalf("socks5 with a wrong password worked: %s", out)
	}
	if out, err := runCurl(t, "-x", socks, "http://blocked.lnk.test:"+port+"/"); err == nil || !strings.Contains(out, "not allowed") && !strings.Contains(out, "refused") && !strings.Contains(out, "SOCKS") {
		t.Fatalf("socks5 to a denied host: %v %s", err, out)
	}
}

// gitServer serves bare repositories under root with git http-backend.
func gitServer(t *testing.T, root string) string {
	t.Helper()
	git := testenv.NeedCommand(t, "git", "git")
	out, err := exec.Command(git, "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		testenv.Missing(t, "git-http-backend", "install the git package")
	}
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	_, port := upstream(t, h)
	return port
}

func gitRun(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestGitClone(t *testing.T) {
	testenv.NeedCommand(t, "git", "git")
	root := t.TempDir()
	env := append(cleanEnv(t.TempDir()), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	work := filepath.Join(root, "work")
	gitRun(t, root, env, "init", "-q", "-b", "main", work)
	os.WriteFile(filepath.Join(work, "README"), []byte("through the proxy\n"), 0o644)
	gitRun(t, work, env, "add", "README")
	gitRun(t, work, env, "commit", "-q", "-m", "first")
	gitRun(t, root, env, "clone", "-q", "--bare", work, filepath.Join(root, "repo.git"))
	port := gitServer(t, root)
	e := startProxy(t, loopPolicy(t), nil)
	for _, px := range []string{
		"socks5h://" + testID + ":" + testSecret + "@" + e.tcp,
		"http://" + testID + ":" + testSecret + "@" + e.tcp,
	} {
		dst := filepath.Join(t.TempDir(), "clone")
		gitRun(t, root, env, "-c", "http.proxy="+px, "clone", "-q", "http://git.lnk.test:"+port+"/repo.git", dst)
		b, err := os.ReadFile(filepath.Join(dst, "README"))
		if err != nil || string(b) != "through the proxy\n" {
			t.Fatalf("clone via %s: %q %v", px[:8], b, err)
		}
	}
	// Without the proxy's consent (a denied name) the clone fails.
	cmd := exec.Command("git", "-c", "http.proxy=socks5h://"+testID+":"+testSecret+"@"+e.tcp, "clone", "-q", "http://blocked.lnk.test:"+port+"/repo.git", filepath.Join(t.TempDir(), "x"))
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("clone of a denied host worked: %s", out)
	}
}

func countFDs(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// TestLoad moves a checksummed payload over 1000 concurrent tunnels
// (CONNECT and SOCKS5) through one proxy, and checks nothing leaks.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped in -short")
	}
	e := startProxy(t, loopPolicy(t), nil)
	eport := echoServer(t)
	ep, _ := strconv.Atoi(eport)
	baseG, baseFD := runtime.NumGoroutine(), countFDs(t)
	const n, size = 1000, 32 << 10
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- loadOne(t, e, i, ep, size)
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			if failed < 5 {
				t.Error(err)
			}
			failed++
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d connections failed", failed, n)
	}
	t.Logf("%d tunnels x %d KiB in %v", n, size>>10, time.Since(t0))
	// Everything the proxy opened is closed again.
	deadline := time.Now().Add(10 * time.Second)
	for {
		g, fd := runtime.NumGoroutine(), countFDs(t)
		if g <= baseG+2 && fd <= baseFD {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("leak: goroutines %d -> %d, fds %d -> %d", baseG, g, baseFD, fd)
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.p.mu.Lock()
	open, active := len(e.p.conns), e.p.active
	e.p.mu.Unlock()
	if open != 0 || active != 0 {
		t.Fatalf("proxy still tracks %d connections, %d active", open, active)
	}
}

// loadOne sends a random payload through one tunnel to the echo server and
// checks that exactly it comes back.
func loadOne(t *testing.T, e *env, i, port, size int) error {
	var c net.Conn
	var err error
	if i%2 == 0 {
		c, err = dialConnect(e.tcp, "echo.lnk.test:"+strconv.Itoa(port))
	} else {
		c, err = dialSOCKS(e.tcp, "echo.lnk.test", port)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	payload := make([]byte, size)
	rand.Read(payload)
	want := sha256.Sum256(payload)
	werr := make(chan error, 1)
	go func() {
		_, err := c.Write(payload)
		c.(*net.TCPConn).CloseWrite()
		werr <- err
	}()
	h := sha256.New()
	got, err := io.Copy(h, c)
	if err != nil {
		return err
	}
	if err := <-werr; err != nil {
		return err
	}
	if got != int64(size) || !bytes.Equal(h.Sum(nil), want[:]) {
		return &loadError{i, got}
	}
	return nil
}

type loadError struct {
	i   int
	got int64
}

func (e *loadError) Error() string {
	return "connection " + strconv.Itoa(e.i) + ": payload differs (" + strconv.FormatInt(e.got, 10) + " bytes back)"
}

func dialConnect(proxyAddr, target string) (net.Conn, error) {
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n"+authHeader()+"\r\n")
	// Read the answer byte by byte: nothing past it may be consumed.
	var hdr []byte
	b := make([]byte, 1)
	for !bytes.HasSuffix(hdr, []byte("\r\n\r\n")) && len(hdr) < 1024 {
		if _, err := c.Read(b); err != nil {
			c.Close()
			return nil, err
		}
		hdr = append(hdr, b[0])
	}
	if !bytes.HasPrefix(hdr, []byte("HTTP/1.1 200")) {
		c.Close()
		return nil, errors.New("CONNECT: " + string(hdr))
	}
	return c, nil
}

func dialSOCKS(proxyAddr, host string, port int) (net.Conn, error) {
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	msg := []byte{5, 1, 2, 1, byte(len(testID))}
	msg = append(append(msg, testID...), byte(len(testSecret)))
	msg = append(append(msg, testSecret...), 5, 1, 0, 3, byte(len(host)))
	msg = append(append(msg, host...), byte(port>>8), byte(port))
	c.Write(msg)
	rep := make([]byte, 2+2+10)
	if _, err := io.ReadFull(c, rep); err != nil {
		c.Close()
		return nil, err
	}
	if rep[1] != 2 || rep[3] != 0 || rep[5] != 0 {
		c.Close()
		return nil, fmt.Errorf("socks reply % x", rep)
	}
	return c, nil
}
