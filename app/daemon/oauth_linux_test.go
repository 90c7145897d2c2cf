package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/client"
	"lnk.dev/sandbox/build/testenv"
	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
	"lnk.dev/sandbox/spec"
)

// These tests run a tool's localhost login end to end: a real sandbox
// (bubblewrap, lnk's init, the real daemon and proxy), the person's
// answer given on the daemon's queue, and headless Chromium as the
// person's browser, following a fake provider's redirect to
// http://localhost:PORT/callback on the host.

var (
	lnkOnce sync.Once
	lnkPath string
	lnkErr  error
)

// builtLnk builds the lnk binary once for the package's tests.
func builtLnk(t *testing.T) string {
	t.Helper()
	lnkOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lnk-daemon-bin")
		if err != nil {
			lnkErr = err
			return
		}
		os.Chmod(dir, 0o755)
		lnkPath = filepath.Join(dir, "lnk")
		if out, err := exec.Command("go", "build", "-o", lnkPath, "lnk.dev/sandbox/app/lnk").CombinedOutput(); err != nil {
			lnkErr = fmt.Errorf("go build app/lnk: %v\n%s", err, out)
		}
	})
	if lnkErr != nil {
		t.Fatal(lnkErr)
	}
	return lnkPath
}

// browser is the person's browser: headless Chromium, one process group
// per page, killed when the test ends. With no chromium it only records.
type browser struct {
	t        *testing.T
	chromium string
	dir      string

	mu    sync.Mutex
	pages []string
	procs []*exec.Cmd
}

func newBrowser(t *testing.T, chromium string) *browser {
	b := &browser{t: t, chromium: chromium, dir: t.TempDir()}
	t.Cleanup(b.close)
	return b
}

func (b *browser) open(_ context.Context, page string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pages = append(b.pages, page)
	if b.chromium == "" {
		return nil
	}
	profile, err := os.MkdirTemp(b.dir, "profile")
	if err != nil {
		return err
	}
	cmd := exec.Command(b.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir="+profile, page)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return err
	}
	b.procs = append(b.procs, cmd)
	return nil
}

func (b *browser) opened() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.pages...)
}

// close kills each Chromium's whole process group and reaps it.
func (b *browser) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, cmd := range b.procs {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}
	b.procs = nil
}

// provider is a fake OAuth provider on 127.0.0.1: /auth redirects the
// browser to the page's redirect_uri with a code.
type provider struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []string
}

func newProvider(t *testing.T) *provider {
	p := &provider{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.hits = append(p.hits, r.URL.Path)
		p.mu.Unlock()
		if r.URL.Path != "/auth" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c0de-42&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) authURL(port int) string {
	return p.srv.URL + "/auth?client_id=tool&response_type=code&state=st8&redirect_uri=" +
		url.QueryEscape(fmt.Sprintf("http://localhost:%d/callback", port))
}

func (p *provider) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.hits...)
}

// oauthWorld is a real daemon with the real wall, whose questions wait
// on the queue.
type oauthWorld struct {
	t       *testing.T
	c       *client.Client
	paths   apitype.Paths
	browser *browser
	folder  string
	home    string
}

func newOAuthWorld(t *testing.T, chromium string, wait time.Duration) *oauthWorld {
	t.Helper()
	testenv.NeedBwrap(t)
	lnk := builtLnk(t)
	dir := shortTemp(t)
	os.Chmod(dir, 0o755)
	w := &oauthWorld{t: t, home: filepath.Join(dir, "home"), browser: newBrowser(t, chromium)}
	w.folder = filepath.Join(w.home, "proj")
	if err := os.MkdirAll(w.folder, 0o755); err != nil {
		t.Fatal(err)
	}
	w.paths = apitype.Paths{Runtime: filepath.Join(dir, "run"), State: filepath.Join(dir, "state")}
	cfg := Config{
		Paths: w.paths, LnkPath: lnk, Logf: t.Logf,
		Dialog:       &dialogs.Fake{Unavailable: errors.New("no screen in this test: answer on the queue")},
		OpenURL:      w.browser.open,
		CallbackWait: wait,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("daemon did not stop")
		}
	})
	w.c = &client.Client{Socket: filepath.Join(w.paths.Runtime, "control.sock")}
	for i := 0; ; i++ {
		if _, err := w.c.Status(context.Background()); err == nil {
			break
		} else if i > 300 {
			t.Fatalf("daemon did not answer: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return w
}

// login is the login program running in a sandbox.
type login struct {
	id   string
	cmd  *exec.Cmd
	out  *syncBuf
	done chan struct{}
	code int
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startLogin runs the login program (this test binary, copied into the
// sandbox's folder) in a sandbox whose spec has endpoints.
func (w *oauthWorld) startLogin(endpoints string, port int, page string, wait time.Duration) *login {
	t := w.t
	t.Helper()
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(w.folder, "login")
	if err := os.WriteFile(prog, self, 0o755); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("[filesystem]\nallow_write = [\".\"]\n[commands]\nallow = [\".\"]\n[network]\nendpoints = [%s]\n", endpoints)
	s, err := spec.Parse("login.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := spec.Resolve(s, "login.toml", spec.Env{Home: w.home, Folder: w.folder, Path: os.Getenv("PATH"),
		Link: spec.DefaultLinkDirs(w.home, "", "", "", "")})
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "LNK_TEST_LOGIN=1",
		fmt.Sprintf("LNK_TEST_LOGIN_PORT=%d", port), "LNK_TEST_LOGIN_URL=" + page, "LNK_TEST_LOGIN_WAIT=" + wait.String()}
	resp, err := w.c.Wrap(context.Background(), &apitype.WrapRequest{Policy: pol, Argv: []string{prog}, Env: env, Name: "login"})
	if err != nil {
		t.Fatal(err)
	}
	l := &login{id: resp.ID, cmd: exec.Command(resp.Argv[0], resp.Argv[1:]...), out: &syncBuf{}, done: make(chan struct{})}
	l.cmd.Env, l.cmd.Dir = resp.Env, resp.Dir
	l.cmd.Stdout, l.cmd.Stderr = l.out, l.out
	if err := l.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := l.cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			l.code = ee.ExitCode()
		} else if err != nil {
			l.code = -1
		}
		close(l.done)
	}()
	t.Cleanup(func() {
		l.cmd.Process.Kill()
		<-l.done
	})
	return l
}

// wait waits (bounded) for the login to end and returns its exit code.
func (l *login) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-l.done:
		return l.code
	case <-time.After(d):
		t.Fatalf("the login did not end within %v; output:\n%s", d, l.out)
		return 0
	}
}

// answer waits (bounded) for the sandbox's question on the queue,
// answers it with choice and returns it.
func (w *oauthWorld) answer(id, choice string) apitype.Question {
	t := w.t
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for time.Now().Before(deadline) {
		qs, err := w.c.Questions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if q.SandboxID == id {
				if err := w.c.Answer(context.Background(), &apitype.AnswerRequest{ID: q.ID, Choice: choice}); err != nil {
					t.Fatal(err)
				}
				return q
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("sandbox %s asked nothing", id)
	return apitype.Question{}
}

// logText is the sandbox's log as "proto decision rule error" lines.
func (w *oauthWorld) logText(id string) string {
	var b strings.Builder
	proxy.ReadLog(context.Background(), w.paths.LogDir(), proxy.Filter{Sandbox: id}, false, func(r proxy.Record) error {
		fmt.Fprintf(&b, "%s %s %s %s %s\n", r.Proto, r.Decision, r.Host, r.Rule, r.Error)
		return nil
	})
	return b.String()
}

// hostPort returns a loopback port free on this computer (for a moment).
func hostPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// refused reports whether nothing accepts on 127.0.0.1:port, or what
// does answers a request with something other than the login's page.
func refused(port int) bool {
	c := &http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/callback?code=stolen", port))
	if err != nil {
		return true
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusGone
}

func TestOAuthLoginThroughChromium(t *testing.T) {
	chromium := testenv.NeedCommand(t, "chromium", "chromium")
	w := newOAuthWorld(t, chromium, time.Minute)
	prov := newProvider(t)
	port := hostPort(t)
	page := prov.authURL(port)
	l := w.startLogin(`"open", "oauth"`, port, page, time.Minute)
	q := w.answer(l.id, "allow")
	if q.Bridge != "open" || q.Subject != page || !strings.Contains(q.Text, fmt.Sprintf("its login answers on localhost:%d", port)) ||
		!strings.Contains(q.Text, "site: 127.0.0.1, port") || q.Always {
		t.Errorf("the question:\n%+v", q)
	}
	if code := l.wait(t, 90*time.Second); code != 0 || !strings.Contains(l.out.String(), "code=c0de-42") {
		t.Fatalf("the login exited %d:\n%s\nlog:\n%s", code, l.out, w.logText(l.id))
	}
	if got := w.browser.opened(); len(got) != 1 || got[0] != page {
		t.Errorf("the browser opened %q, want %q", got, page)
	}
	if hits := prov.requests(); len(hits) == 0 || hits[0] != "/auth" {
		t.Errorf("the provider saw %q", hits)
	}
	// The port passed its one request: nothing more reaches the sandbox.
	if !refused(port) {
		t.Error("a second request to the callback port was not refused")
	}
	// The relay logs the request once the browser has its answer, which
	// may be after the login (and so the sandbox) ended: wait for it.
	passed := fmt.Sprintf("oauth allow localhost oauth: passed GET /callback from localhost:%d into the sandbox (status 200)", port)
	log := w.logText(l.id)
	for i := 0; i < 100 && !strings.Contains(log, passed); i++ {
		time.Sleep(50 * time.Millisecond)
		log = w.logText(l.id)
	}
	for _, want := range []string{
		"open allow 127.0.0.1 open: opened via queue",
		fmt.Sprintf("oauth allow localhost oauth: listening on localhost:%d", port),
		passed,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s\nthe login said:\n%s", want, log, l.out)
		}
	}
	// The port closes because its request passed, or because the login,
	// having its answer, ended the sandbox first: either way, once.
	closed := fmt.Sprintf("oauth: closed localhost:%d: ", port)
	if n := strings.Count(log, closed); n != 1 || !strings.Contains(log, closed+"its one request passed") && !strings.Contains(log, closed+"the sandbox ended") {
		t.Errorf("the log does not say once why the port closed:\n%s", log)
	}
	if strings.Contains(log, "c0de-42") {
		t.Errorf("the log holds the login's code:\n%s", log)
	}
}

func TestOAuthLoginDenied(t *testing.T) {
	w := newOAuthWorld(t, "", time.Minute)
	prov := newProvider(t)
	port := hostPort(t)
	l := w.startLogin(`"open", "oauth"`, port, prov.authURL(port), 5*time.Second)
	w.answer(l.id, "deny")
	if code := l.wait(t, 60*time.Second); code != 3 || !strings.Contains(l.out.String(), "browser exit 3") ||
		!strings.Contains(l.out.String(), "the person said no") {
		t.Fatalf("the login exited %d:\n%s", code, l.out)
	}
	if got := w.browser.opened(); len(got) != 0 {
		t.Errorf("the browser opened %q after a no", got)
	}
	if hits := prov.requests(); len(hits) != 0 {
		t.Errorf("the provider saw %q", hits)
	}
	if !refused(port) {
		t.Error("the callback port listens after a no")
	}
}

func TestOAuthCallbackPortTakenOnTheHost(t *testing.T) {
	other, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	port := other.Addr().(*net.TCPAddr).Port
	w := newOAuthWorld(t, "", time.Minute)
	prov := newProvider(t)
	l := w.startLogin(`"open", "oauth"`, port, prov.authURL(port), 5*time.Second)
	q := w.answer(l.id, "allow")
	if !strings.Contains(q.Text, "LNK REFUSES THIS PAGE") || !strings.Contains(q.Text, "taken on this computer by another program") {
		t.Errorf("the question does not say the port is taken:\n%s", q.Text)
	}
	if code := l.wait(t, 60*time.Second); code != 3 || !strings.Contains(l.out.String(), "browser exit 4") ||
		!strings.Contains(l.out.String(), "taken on this computer") {
		t.Fatalf("the login exited %d:\n%s", code, l.out)
	}
	if got := w.browser.opened(); len(got) != 0 {
		t.Errorf("the browser opened %q with the callback port taken", got)
	}
	if log := w.logText(l.id); !strings.Contains(log, "open deny 127.0.0.1 open: refused: its callback port is taken") {
		t.Errorf("log:\n%s", log)
	}
}

func TestOAuthCallbackExpires(t *testing.T) {
	w := newOAuthWorld(t, "", 2*time.Second) // a browser that never follows the page
	prov := newProvider(t)
	port := hostPort(t)
	l := w.startLogin(`"open", "oauth"`, port, prov.authURL(port), 6*time.Second)
	w.answer(l.id, "allow")
	if code := l.wait(t, 60*time.Second); code != 4 || !strings.Contains(l.out.String(), "browser opened") {
		t.Fatalf("the login exited %d:\n%s", code, l.out)
	}
	if !refused(port) {
		t.Error("the callback port still listens after it expired")
	}
	if log := w.logText(l.id); !strings.Contains(log, fmt.Sprintf("oauth: closed localhost:%d: no request came in 2s", port)) {
		t.Errorf("log:\n%s", log)
	}
}

func TestOAuthNeedsTheEndpoint(t *testing.T) {
	w := newOAuthWorld(t, "", time.Minute)
	prov := newProvider(t)
	port := hostPort(t)
	l := w.startLogin(`"open"`, port, prov.authURL(port), 3*time.Second)
	w.answer(l.id, "allow")
	if code := l.wait(t, 60*time.Second); code != 4 || !strings.Contains(l.out.String(), `note: its login answers on localhost`) {
		t.Fatalf("the login exited %d:\n%s", code, l.out)
	}
	if !refused(port) {
		t.Error("lnk listened on the callback port without the oauth endpoint")
	}
}
