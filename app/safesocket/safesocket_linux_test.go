package safesocket

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lnk.dev/sandbox/build/testenv"
)

// shortDir returns a temp dir whose paths fit in sun_path.
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", "ss")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// serve echoes one line per connection and closes it.
func serve(t *testing.T, path string, onRefuse func(error)) *Listener {
	t.Helper()
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	l.OnRefuse = onRefuse
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Fprintf(c, "hello\n")
			c.Close()
		}
	}()
	return l
}

func TestListenModes(t *testing.T) {
	dir := filepath.Join(shortDir(t), "run", "lnk")
	path := SocketPath(dir)
	serve(t, path, nil)
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	if _, err := Listen(path); err != ErrInUse {
		t.Errorf("second Listen: %v, want ErrInUse", err)
	}
	c, err := Dial(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	c.Close()
	if string(b) != "hello\n" {
		t.Errorf("same user was not served: %q", b)
	}
}

func TestListenRefusesOpenDir(t *testing.T) {
	dir := filepath.Join(shortDir(t), "open")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(SocketPath(dir)); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Fatalf("Listen in a 0755 folder: %v", err)
	}
	link := filepath.Join(shortDir(t), "link")
	if err := os.Symlink(shortDir(t), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(SocketPath(link)); err == nil {
		t.Fatal("Listen through a symlinked folder succeeded")
	}
}

func TestListenRemovesStale(t *testing.T) {
	dir := shortDir(t)
	path := SocketPath(dir)
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close() // the file stays, nobody answers
	serve(t, path, nil)
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, nil, 0o600)
	if _, err := Listen(plain); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("Listen over a plain file: %v", err)
	}
}

// waitRefused waits (bounded) for the listener to count n refusals.
func waitRefused(t *testing.T, l *Listener, n int64) {
	t.Helper()
	for i := 0; i < 100 && l.Refused() < n; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if l.Refused() < n {
		t.Fatalf("refused %d peers, want %d", l.Refused(), n)
	}
}

func TestRefusesOtherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to connect as another user")
	}
	socat := testenv.NeedCommand(t, "socat", "socat")
	setpriv := testenv.NeedCommand(t, "setpriv", "util-linux")
	dir := shortDir(t)
	path := SocketPath(filepath.Join(dir, "s"))
	whyc := make(chan error, 4)
	l := serve(t, path, func(err error) { whyc <- err })
	// Open the door on purpose: only the peer check stands.
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(path), 0o755)
	os.Chmod(path, 0o777)
	out, _ := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
		socat, "-t2", "-", "UNIX-CONNECT:"+path).CombinedOutput()
	if strings.Contains(string(out), "hello") {
		t.Fatalf("another user was served: %q", out)
	}
	waitRefused(t, l, 1)
	why := <-whyc
	if !IsAccessDenied(why) || !strings.Contains(why.Error(), "uid 65534") {
		t.Errorf("refusal reason: %v", why)
	}
}

func TestRefusesOtherNetns(t *testing.T) {
	testenv.NeedBwrap(t)
	socat := testenv.NeedCommand(t, "socat", "socat")
	dir := shortDir(t)
	path := SocketPath(filepath.Join(dir, "s"))
	whyc := make(chan error, 4)
	l := serve(t, path, func(err error) { whyc <- err })
	out, _ := exec.Command("bwrap", "--unshare-net", "--die-with-parent", "--ro-bind", "/", "/",
		"--dev", "/dev", "--proc", "/proc", socat, "-t2", "-", "UNIX-CONNECT:"+path).CombinedOutput()
	if strings.Contains(string(out), "hello") {
		t.Fatalf("a peer in another network namespace was served: %q", out)
	}
	waitRefused(t, l, 1)
	why := <-whyc
	if !IsAccessDenied(why) || !strings.Contains(why.Error(), "network namespace") {
		t.Errorf("refusal reason: %v", why)
	}
	// The same program outside a sandbox is served.
	out, err := exec.Command(socat, "-t2", "-", "UNIX-CONNECT:"+path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "hello") {
		t.Errorf("socat outside the sandbox: %v %q", err, out)
	}
}
