//go:build linux

package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/localapi"
	"lnk.dev/sandbox/app/safesocket"
)

// TestMain lets the test binary play the daemon EnsureDaemon starts:
// `… sandbox daemon --socket PATH` serves a fake backend until SIGTERM;
// with LNK_TEST_DAEMON=fail it exits at once.
func TestMain(m *testing.M) {
	if len(os.Args) == 5 && os.Args[1] == "sandbox" && (os.Args[2] == "daemon" || os.Args[2] == "tray") {
		if os.Getenv("LNK_TEST_DAEMON") == "fail" {
			println("fake daemon: refusing to start")
			os.Exit(125)
		}
		l, err := safesocket.Listen(os.Args[4])
		if err != nil {
			println(err.Error())
			os.Exit(125)
		}
		srv := &http.Server{Handler: localapi.NewHandler(&fake{})}
		go srv.Serve(l)
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		<-ctx.Done()
		srv.Close()
		os.Remove(os.Args[4])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type fake struct{}

func (fake) Status(context.Context) *apitype.Status {
	return &apitype.Status{Version: "fake", PID: os.Getpid()}
}
func (fake) Wrap(_ context.Context, r *apitype.WrapRequest) (*apitype.WrapResponse, error) {
	return &apitype.WrapResponse{ID: "id1", Argv: r.Argv}, nil
}
func (fake) List(context.Context) []apitype.Sandbox { return []apitype.Sandbox{{ID: "id1"}} }
func (fake) Stop(_ context.Context, r *apitype.IDRequest) ([]string, error) {
	return nil, apitype.Errorf(apitype.CodeNotFound, "no sandbox "+r.ID)
}
func (fake) Pause(context.Context, string) error  { return nil }
func (fake) Resume(context.Context, string) error { return nil }
func (fake) Log(_ context.Context, _ string, _ bool, fn func(*apitype.LogRecord) error) error {
	fn(&apitype.LogRecord{Sandbox: "id1", Host: "a.example", Decision: "deny"})
	return nil
}

func tempSocket(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", "lnkc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	t.Setenv("HOME", d)
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("XDG_STATE_HOME", "")
	return filepath.Join(d, "run", "control.sock")
}

// stopDaemon ends the fake daemon started on sock.
func stopDaemon(t *testing.T, c *Client) {
	st, err := c.Status(context.Background())
	if err != nil || st.PID <= 0 {
		return
	}
	syscall.Kill(st.PID, syscall.SIGTERM)
	for i := 0; i < 100; i++ {
		if _, err := c.Status(context.Background()); errors.Is(err, ErrNoDaemon) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("fake daemon %d did not stop", st.PID)
}

func TestEnsureDaemonStartsAndTalks(t *testing.T) {
	c := &Client{Socket: tempSocket(t)}
	ctx := context.Background()
	if _, err := c.List(ctx); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("no daemon: %v, want ErrNoDaemon", err)
	}
	exe, _ := os.Executable()
	st, err := c.EnsureDaemon(ctx, exe)
	if err != nil || !st.Started || st.Died {
		t.Fatalf("EnsureDaemon: %+v %v", st, err)
	}
	t.Cleanup(func() { stopDaemon(t, c) })
	if st, err := c.EnsureDaemon(ctx, exe); err != nil || st.Started {
		t.Errorf("second EnsureDaemon started another: %+v %v", st, err)
	}
	if w, err := c.Wrap(ctx, &apitype.WrapRequest{Argv: []string{"x"}, Policy: nil}); err == nil {
		t.Errorf("wrap without a policy was accepted: %+v", w)
	}
	if _, err := c.Stop(ctx, "nope", false); !errors.Is(err, apitype.ErrNotFound) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("stop: %v", err)
	}
	var n int
	if err := c.Log(ctx, "id1", false, func(*apitype.LogRecord) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("log: %d records, %v", n, err)
	}
}

func TestEnsureDaemonSaysItDied(t *testing.T) {
	sock := tempSocket(t)
	// A socket file nobody answers on: a daemon that died.
	if err := safesocket.PrivateDir(filepath.Dir(sock)); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	c := &Client{Socket: sock}
	exe, _ := os.Executable()
	st, err := c.EnsureDaemon(context.Background(), exe)
	if err != nil || !st.Died || !st.Started {
		t.Fatalf("EnsureDaemon over a dead socket: %+v %v", st, err)
	}
	stopDaemon(t, c)
}

func TestEnsureDaemonThatFails(t *testing.T) {
	c := &Client{Socket: tempSocket(t)}
	t.Setenv("LNK_TEST_DAEMON", "fail")
	exe, _ := os.Executable()
	t0 := time.Now()
	_, err := c.EnsureDaemon(context.Background(), exe)
	if err == nil || !strings.Contains(err.Error(), "refusing to start") {
		t.Fatalf("a daemon that exits at once: %v", err)
	}
	if time.Since(t0) > lostRace+time.Second {
		t.Errorf("took %v to notice the daemon had exited", time.Since(t0))
	}
}

func TestForeignRuntimeFolder(t *testing.T) {
	sock := tempSocket(t)
	os.MkdirAll(filepath.Dir(sock), 0o755)
	os.Chmod(filepath.Dir(sock), 0o755)
	c := &Client{Socket: sock}
	exe, _ := os.Executable()
	if _, err := c.EnsureDaemon(context.Background(), exe); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Errorf("EnsureDaemon in a 0755 folder: %v", err)
	}
}

func (f *fake) Questions(context.Context) []apitype.Question { return nil }
func (f *fake) WatchQuestions(context.Context, string, func(*apitype.QuestionEvent) error) error {
	return nil
}
func (f *fake) Answer(context.Context, *apitype.AnswerRequest) error { return nil }
func (f *fake) Remembered(context.Context) []apitype.Remembered      { return nil }
func (f *fake) Forget(context.Context, *apitype.ForgetRequest) (int, error) {
	return 0, nil
}
