//go:build linux

package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// listenCount accepts on 127.0.0.1 and counts connections.
func listenCount(t *testing.T, hits *atomic.Int64) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// sshForwarding: `restrict` refuses -R at once and every -L connection.
func sshForwarding(t *testing.T, b *sshBox) {
	hits := atomic.Int64{}
	target := listenCount(t, &hits)
	r := b.ssh([]string{"-o", "ExitOnForwardFailure=yes", "-R", fmt.Sprintf("127.0.0.1:%d:127.0.0.1:%d", freePort(t), target)}, "true")
	if r.code == 0 || !strings.Contains(r.stderr, "forwarding failed") {
		t.Errorf("ssh -R: exit %d, %q; want it refused", r.code, r.stderr)
	}

	local := freePort(t)
	// LogLevel before opts' ERROR (the first value wins): the refusal is
	// what ssh says.
	a := append([]string{"-o", "LogLevel=INFO"}, b.opts()...)
	a = append(a, "-p", fmt.Sprint(b.port), "-L", fmt.Sprintf("127.0.0.1:%d:127.0.0.1:%d", local, target), b.host(), "sleep 20")
	cmd := exec.Command("ssh", a...)
	cmd.Env = b.clientEnv()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var c net.Conn
	for i := 0; i < 200; i++ {
		var err error
		if c, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", local)); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c == nil {
		t.Fatalf("ssh -L never listened on %d: %s", local, stderr)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	n, _ := c.Read(make([]byte, 1))
	c.Close()
	if !waitFor(stderr, "prohibited", 10*time.Second) || n != 0 {
		t.Errorf("ssh -L: the forwarded connection was not refused (read %d bytes; ssh said %q)", n, stderr)
	}
	if hits.Load() != 0 {
		t.Errorf("ssh -L reached the target %d times", hits.Load())
	}
}

// sshCheck: a key forced into `enter --check` prints the account and runs
// nothing, whatever command the client sends.
func sshCheck(t *testing.T, w *world, b *sshBox) {
	defer b.authorize(w.folder)
	b.authorize(w.folder, "--check")
	marker := filepath.Join(w.folder, "ran")
	r := b.ssh(nil, "touch "+marker)
	want := w.must("permissions", "--spec", b.spec, "--folder", w.folder)
	if r.code != 0 || r.stdout != want {
		t.Errorf("enter --check: exit %d, stdout:\n%s\nwant the permissions account:\n%s\nstderr: %s", r.code, r.stdout, want, r.stderr)
	}
	if !strings.Contains(r.stderr, "nothing was run") {
		t.Errorf("enter --check does not say it ran nothing: %q", r.stderr)
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Error("enter --check ran the command")
	}
}

// sshSymlinkedFolder: a folder that became a symlink since the key was
// added is refused at connect time, with the reason on stderr.
func sshSymlinkedFolder(t *testing.T, w *world, b *sshBox) {
	defer b.authorize(w.folder)
	folder := filepath.Join(w.home, "desk")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	b.authorize(folder)
	if r := b.ssh(nil, "echo RAN"); r.code != 0 || r.stdout != "RAN\n" {
		t.Fatalf("a session in a real folder: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	real := filepath.Join(w.root, "elsewhere")
	if err := os.Rename(folder, real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, folder); err != nil {
		t.Fatal(err)
	}
	r := b.ssh(nil, "echo RAN")
	if r.code == 0 || strings.Contains(r.stdout, "RAN") {
		t.Fatalf("a session in a symlinked folder ran: exit %d %q", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "is a symlink") || !strings.Contains(r.stderr, "refused") {
		t.Errorf("the refusal does not say why: %q", r.stderr)
	}
	b.authorize(folder, "--check")
	if r := b.ssh(nil, "true"); r.code == 0 {
		t.Errorf("enter --check passed a symlinked folder: %q", r.stdout)
	}
}

// TestEnterCheckRunsNothing: --check with a client command starts no
// daemon and runs nothing; its account is `permissions`'.
func TestEnterCheckRunsNothing(t *testing.T) {
	w := newWorld(t, true)
	spec := w.writeSpec("[filesystem]\nallow_write = [\".\"]\n")
	marker := filepath.Join(w.folder, "ran")
	cmd := exec.Command(lnkBin, "sandbox", "enter", "--check", "--spec", spec, "--folder", w.folder)
	cmd.Env = append(w.env(), "SSH_ORIGINAL_COMMAND=touch "+marker, "SHELL=/bin/sh")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("enter --check: %v", err)
	}
	if want := w.must("permissions", "--spec", spec, "--folder", w.folder); string(out) != want {
		t.Errorf("enter --check printed:\n%s\nwant:\n%s", out, want)
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Error("enter --check ran the command")
	}
	if w.daemonPID() != 0 {
		t.Error("enter --check started the daemon")
	}
	r := w.lnk("enter", "--spec", spec)
	if r.code != 2 || !strings.Contains(r.stderr, "--folder") {
		t.Errorf("enter without --folder: exit %d %q, want 2 naming --folder", r.code, r.stderr)
	}
}
