package daemon

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/client"
	"lnk.dev/sandbox/spec"
)

func TestMain(m *testing.M) {
	if os.Getenv("LNK_TEST_FAKE_INIT") != "" {
		os.Exit(fakeInit())
	}
	if os.Getenv("LNK_TEST_LOGIN") != "" {
		os.Exit(fakeLogin()) // oauth_linux_test.go, inside a real sandbox
	}
	os.Exit(m.Run())
}

// fakeInit plays a sandbox's init (helper process): it opens the session,
// says start, prints each command on stdout, and on stop says exit 143
// and exits, unless LNK_TEST_FAKE_INIT is "stubborn" (it then ignores stop
// and waits for SIGKILL). Both ignore SIGTERM.
func fakeInit() int {
	stubborn := os.Getenv("LNK_TEST_FAKE_INIT") == "stubborn"
	// A real init forwards SIGTERM to its child; the fake has none, and
	// must live to report the stop command the daemon sends first.
	signal.Ignore(syscall.SIGTERM)
	c, br, code := openSession(os.Getenv("LNK_TEST_SOCKET"), os.Getenv("LNK_TEST_ID"), os.Getenv("LNK_TEST_SECRET"))
	if code != http.StatusSwitchingProtocols {
		fmt.Printf("status %d\n", code)
		return 1
	}
	fmt.Fprintf(c, `{"event":"start","pid":2}`+"\n")
	fmt.Println("started")
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			fmt.Println("dropped")
			if stubborn {
				select {} // wait for SIGKILL
			}
			return 125
		}
		var cmd command
		json.Unmarshal([]byte(line), &cmd)
		fmt.Println(cmd.Cmd)
		if cmd.Cmd == "stop" && !stubborn {
			fmt.Fprintf(c, `{"event":"exit","code":143}`+"\n")
			return 143
		}
	}
}

// openSession sends the session upgrade on a proxy socket and returns the
// connection, its reader and the status code.
func openSession(sock, id, secret string) (net.Conn, *bufio.Reader, int) {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return nil, nil, 0
	}
	auth := base64.StdEncoding.EncodeToString([]byte(id + ":" + secret))
	fmt.Fprintf(c, "GET http://lnk.sandbox/session HTTP/1.1\r\nHost: lnk.sandbox\r\nProxy-Authorization: Basic %s\r\nConnection: Upgrade\r\nUpgrade: lnk-session\r\n\r\n", auth)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, nil, 0
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		c.Close()
	}
	return c, br, resp.StatusCode
}

type testDaemon struct {
	t      *testing.T
	paths  apitype.Paths
	c      *client.Client
	cancel context.CancelFunc
	done   chan error
	mu     sync.Mutex
	reqs   map[string]*wallRequest
}

func shortTemp(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", "lnkd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// startDaemon runs a daemon with a fake wall that records each request.
func startDaemon(t *testing.T, cfg Config) *testDaemon {
	t.Helper()
	dir := shortTemp(t)
	cfg.Paths = apitype.Paths{Runtime: filepath.Join(dir, "run"), State: filepath.Join(dir, "state")}
	cfg.LnkPath = "/bin/true"
	cfg.Logf = t.Logf
	td := &testDaemon{t: t, paths: cfg.Paths, done: make(chan error, 1), reqs: map[string]*wallRequest{}}
	old := wallWrap
	wallWrap = func(r *wallRequest) (*wallCommand, error) {
		td.mu.Lock()
		td.reqs[r.SandboxID] = r
		td.mu.Unlock()
		return &wallCommand{Argv: append([]string{"wall"}, r.Argv...), Env: r.Env, Dir: r.Policy.Folder}, nil
	}
	t.Cleanup(func() { wallWrap = old })
	ctx, cancel := context.WithCancel(context.Background())
	td.cancel = cancel
	go func() { td.done <- Run(ctx, cfg) }()
	t.Cleanup(td.stop)
	td.c = &client.Client{Socket: filepath.Join(cfg.Paths.Runtime, "control.sock")}
	for i := 0; ; i++ {
		if _, err := td.c.Status(context.Background()); err == nil {
			break
		} else if i > 200 {
			t.Fatalf("daemon did not answer: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return td
}

func (td *testDaemon) stop() {
	td.cancel()
	select {
	case err := <-td.done:
		if err != nil {
			td.t.Errorf("daemon: %v", err)
		}
	case <-time.After(10 * time.Second):
		td.t.Error("daemon did not stop")
	}
}

func (td *testDaemon) policy() *spec.Policy {
	td.t.Helper()
	home := shortTemp(td.t)
	p, err := spec.Resolve(spec.Default(), "default", spec.Env{Home: home, Folder: home,
		Link: spec.DefaultLinkDirs(home, "", "", "", "")})
	if err != nil {
		td.t.Fatal(err)
	}
	return p
}

func (td *testDaemon) wrap(argv ...string) (*apitype.WrapResponse, *wallRequest) {
	td.t.Helper()
	resp, err := td.c.Wrap(context.Background(), &apitype.WrapRequest{Policy: td.policy(), Argv: argv, Env: []string{"A=1"}})
	if err != nil {
		td.t.Fatal(err)
	}
	td.mu.Lock()
	defer td.mu.Unlock()
	return resp, td.reqs[resp.ID]
}

func (td *testDaemon) get(id string) apitype.Sandbox {
	td.t.Helper()
	l, err := td.c.List(context.Background())
	if err != nil {
		td.t.Fatal(err)
	}
	for _, s := range l {
		if s.ID == id {
			return s
		}
	}
	td.t.Fatalf("sandbox %s not listed", id)
	return apitype.Sandbox{}
}

// waitState waits (bounded) for sandbox id to reach state.
func (td *testDaemon) waitState(id, state string) apitype.Sandbox {
	td.t.Helper()
	var s apitype.Sandbox
	for i := 0; i < 200; i++ {
		if s = td.get(id); s.State == state {
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	td.t.Fatalf("sandbox %s is %s, want %s", id, s.State, state)
	return s
}

// fakeInitProc starts the helper init for a wrapped sandbox and returns it
// with a reader of the lines it prints.
func fakeInitProc(t *testing.T, r *wallRequest, mode string) (*fakeProc, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LNK_TEST_FAKE_INIT="+mode, "LNK_TEST_SOCKET="+r.ProxySocket,
		"LNK_TEST_ID="+r.SandboxID, "LNK_TEST_SECRET="+r.Secret)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fp := &fakeProc{Process: cmd.Process, lines: make(chan string, 16), done: make(chan error, 1)}
	sc := bufio.NewScanner(out)
	expectLine(t, sc, "started")
	// Reap it as soon as it ends, as bwrap reaps a real init: a zombie
	// would look alive to the daemon.
	go func() {
		for sc.Scan() {
			fp.lines <- sc.Text()
		}
		close(fp.lines)
		fp.done <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill(); <-fp.done })
	return fp, nil
}

type fakeProc struct {
	*os.Process
	lines chan string
	done  chan error
}

func expectLine(t *testing.T, sc *bufio.Scanner, want string) {
	t.Helper()
	if !sc.Scan() {
		t.Fatalf("fake init ended before %q: %v", want, sc.Err())
	}
	if got := sc.Text(); got != want {
		t.Fatalf("fake init said %q, want %q", got, want)
	}
}

func (fp *fakeProc) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-fp.lines:
		if got != want {
			t.Fatalf("fake init said %q, want %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("fake init did not say %q", want)
	}
}

func (fp *fakeProc) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-fp.done:
		fp.done <- err
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("fake init did not end")
		return nil
	}
}

func TestWrapRegistersAndHidesOwnDirs(t *testing.T) {
	td := startDaemon(t, Config{})
	resp, req := td.wrap("echo", "hi")
	if len(resp.ID) != 12 || len(req.Secret) != 64 {
		t.Errorf("id %q secret length %d", resp.ID, len(req.Secret))
	}
	if strings.Join(resp.Argv, " ") != "wall echo hi" || resp.Env[0] != "A=1" {
		t.Errorf("response %+v", resp)
	}
	fi, err := os.Stat(req.ProxySocket)
	if err != nil || fi.Mode().Perm() != 0o600 || !strings.HasPrefix(req.ProxySocket, td.paths.Runtime) {
		t.Errorf("proxy socket %s: %v %v", req.ProxySocket, fi.Mode(), err)
	}
	for _, own := range []string{td.paths.Runtime, td.paths.State} {
		if req.Policy.CanRead(filepath.Join(own, "x")) {
			t.Errorf("the sandbox may read the daemon's %s", own)
		}
	}
	s := td.get(resp.ID)
	if s.State != apitype.StateStarting || s.Name != "echo" {
		t.Errorf("listed %+v", s)
	}
	_, req2 := td.wrap("true")
	if req2.Secret == req.Secret || req2.SandboxID == req.SandboxID {
		t.Error("two sandboxes share an id or a secret")
	}
}

// TestKeepSessionTravels: only a request that asks for the kept terminal
// session (enter) gets it; a run keeps its new session.
func TestKeepSessionTravels(t *testing.T) {
	td := startDaemon(t, Config{})
	for _, keep := range []bool{false, true} {
		resp, err := td.c.Wrap(context.Background(), &apitype.WrapRequest{Policy: td.policy(), Argv: []string{"sh"}, KeepSession: keep})
		if err != nil {
			t.Fatal(err)
		}
		td.mu.Lock()
		req := td.reqs[resp.ID]
		td.mu.Unlock()
		if req.KeepSession != keep {
			t.Errorf("asked KeepSession %v, the wall got %v", keep, req.KeepSession)
		}
	}
}

func TestSession(t *testing.T) {
	td := startDaemon(t, Config{StopGrace: 2 * time.Second})
	resp, req := td.wrap("sleep", "100")
	cmd, _ := fakeInitProc(t, req, "polite")
	s := td.waitState(resp.ID, apitype.StateRunning)
	if s.InitPID != cmd.Pid {
		t.Errorf("init pid %d, want %d", s.InitPID, cmd.Pid)
	}
	// A second session (a process inside posing as init) is refused.
	if _, _, code := openSession(req.ProxySocket, req.SandboxID, req.Secret); code != http.StatusConflict {
		t.Errorf("second session: status %d, want 409", code)
	}
	// Without the credentials there is no session at all.
	if _, _, code := openSession(req.ProxySocket, req.SandboxID, "wrong"); code != http.StatusProxyAuthRequired {
		t.Errorf("session with a wrong secret: status %d, want 407", code)
	}
	ctx := context.Background()
	if err := td.c.Pause(ctx, resp.ID); err != nil {
		t.Fatal(err)
	}
	cmd.expect(t, "pause")
	td.waitState(resp.ID, apitype.StatePaused)
	if err := td.c.Pause(ctx, resp.ID); !errors.Is(err, apitype.ErrConflict) {
		t.Errorf("pausing a paused sandbox: %v", err)
	}
	if err := td.c.Resume(ctx, resp.ID); err != nil {
		t.Fatal(err)
	}
	cmd.expect(t, "resume")
	td.waitState(resp.ID, apitype.StateRunning)
	ids, err := td.c.Stop(ctx, resp.ID, false)
	if err != nil || len(ids) != 1 {
		t.Fatalf("stop: %v %v", ids, err)
	}
	cmd.expect(t, "stop")
	td.waitState(resp.ID, apitype.StateStopped)
	if err := cmd.wait(t); err == nil {
		t.Error("init exited 0 after stop")
	}
	if _, err := os.Stat(req.ProxySocket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stopped sandbox's proxy socket is still there: %v", err)
	}
	if _, err := td.c.Stop(ctx, resp.ID, false); !errors.Is(err, apitype.ErrConflict) {
		t.Errorf("stopping a stopped sandbox: %v", err)
	}
	if _, err := td.c.Stop(ctx, "nosuch", false); !errors.Is(err, apitype.ErrNotFound) {
		t.Errorf("stopping no sandbox: %v", err)
	}
}

func TestStopKillsStubbornInit(t *testing.T) {
	td := startDaemon(t, Config{StopGrace: 300 * time.Millisecond})
	resp, req := td.wrap("sleep", "100")
	cmd, _ := fakeInitProc(t, req, "stubborn")
	td.waitState(resp.ID, apitype.StateRunning)
	if _, err := td.c.Stop(context.Background(), "", true); err != nil {
		t.Fatal(err)
	}
	err := cmd.wait(t)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("stubborn init ended with %v, want SIGKILL", err)
	}
	td.waitState(resp.ID, apitype.StateStopped)
}

func TestDaemonExitDropsSessions(t *testing.T) {
	td := startDaemon(t, Config{})
	_, req := td.wrap("sleep", "100")
	cmd, _ := fakeInitProc(t, req, "polite")
	td.stop()
	cmd.expect(t, "dropped")
	cmd.wait(t)
	if _, err := os.Stat(req.ProxySocket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("proxy socket left after the daemon stopped: %v", err)
	}
	td.cancel = func() {}
	td.done <- nil
}

func TestWrappedSandboxExpires(t *testing.T) {
	td := startDaemon(t, Config{WrapExpiry: 200 * time.Millisecond})
	resp, req := td.wrap("true")
	td.waitState(resp.ID, apitype.StateExited)
	// The state changes first, then the proxy closes and its folder goes.
	var err error
	for i := 0; i < 200; i++ {
		if _, err = os.Stat(req.ProxySocket); errors.Is(err, os.ErrNotExist) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an expired sandbox's proxy socket is still there: %v", err)
	}
	if _, _, code := openSession(req.ProxySocket, req.SandboxID, req.Secret); code == http.StatusSwitchingProtocols {
		t.Error("an expired sandbox opened a session")
	}
}

func TestSecondDaemonRefused(t *testing.T) {
	td := startDaemon(t, Config{})
	err := Run(context.Background(), Config{Paths: td.paths, LnkPath: "/bin/true", Logf: t.Logf})
	if !errors.Is(err, ErrRunning) || !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Errorf("second daemon: %v", err)
	}
}

// A long-lived daemon must not keep anything of finished sandboxes:
// goroutines return to where they were.
func TestNoGoroutineLeak(t *testing.T) {
	td := startDaemon(t, Config{StopGrace: time.Second})
	// One round first, so lazily started pools are there before counting.
	round := func() {
		resp, req := td.wrap("true")
		cmd, _ := fakeInitProc(t, req, "polite")
		td.waitState(resp.ID, apitype.StateRunning)
		if _, err := td.c.Stop(context.Background(), resp.ID, false); err != nil {
			t.Fatal(err)
		}
		cmd.wait(t)
		td.waitState(resp.ID, apitype.StateStopped)
		_, req = td.wrap("never-started")
		td.c.Stop(context.Background(), req.SandboxID, false)
	}
	round()
	before := stableGoroutines()
	for i := 0; i < 5; i++ {
		round()
	}
	after := stableGoroutines()
	t.Logf("goroutines: %d before, %d after", before, after)
	if after > before+2 {
		t.Errorf("goroutines grew from %d to %d over 5 sandboxes", before, after)
	}
}

// stableGoroutines waits (bounded) for the goroutine count to settle.
func stableGoroutines() int {
	n := runtime.NumGoroutine()
	for i := 0; i < 50; i++ {
		time.Sleep(20 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}
