//go:build linux

package e2e

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"lnk.dev/sandbox/build/testenv"
)

const fakeKey = "FAKE-PRIVATE-KEY-do-not-leak"

// sshWorld is a world with a fake private key in its HOME, a spec file,
// and sshd forcing its key into enter for the world's folder.
func sshWorld(t *testing.T) (*world, *sshBox) {
	w := newWorld(t, true)
	if err := os.Mkdir(filepath.Join(w.home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.home, ".ssh", "id_rsa"), []byte(fakeKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := w.writeSpec("[filesystem]\nallow_write = [\".\"]\n")
	return w, startSSHD(t, w, spec)
}

// TestSSHSessions reaches a sandbox only through its forced command: a
// command, an interactive shell on a pty, scp, sftp and forwarding all
// stay inside or are refused, with no daemon running beforehand.
func TestSSHSessions(t *testing.T) {
	w, b := sshWorld(t)
	if w.daemonPID() != 0 {
		t.Fatal("a daemon runs before the first session")
	}
	t.Run("command", func(t *testing.T) { sshCommand(t, w, b) })
	t.Run("pty shell", func(t *testing.T) { sshShell(t, w, b) })
	t.Run("pty command", func(t *testing.T) { sshPtyCommand(t, w, b) })
	t.Run("scp", func(t *testing.T) { sshCopy(t, w, b) })
	t.Run("sftp", func(t *testing.T) { sshSftp(t, w, b) })
	t.Run("forwarding", func(t *testing.T) { sshForwarding(t, b) })
	t.Run("check", func(t *testing.T) { sshCheck(t, w, b) })
	t.Run("symlinked folder", func(t *testing.T) { sshSymlinkedFolder(t, w, b) })
}

// sshCommand: `ssh host CMD` runs CMD inside (as the same user, the
// secret hidden, the network only the proxy), its exit code mirrored, and
// the daemon started on demand.
func sshCommand(t *testing.T, w *world, b *sshBox) {
	testenv.NeedCommand(t, "curl", "curl")
	hits := atomic.Int64{}
	target := listenCount(t, &hits)
	r := b.ssh(nil, fmt.Sprintf(`id -u; echo "sandbox=$LNK_SANDBOX"; cat ~/.ssh/id_rsa; echo "cat=$?"; pwd; `+
		`curl -sS -m 5 --noproxy '*' http://127.0.0.1:%d/ >/dev/null 2>&1; echo "curl=$?"; exit 7`, target))
	if r.code != 7 {
		t.Fatalf("ssh host CMD: exit %d, want the command's 7\nstdout: %s\nstderr: %s\nsshd: %s", r.code, r.stdout, r.stderr, b.log)
	}
	for _, want := range []string{fmt.Sprintf("%d\n", os.Getuid()), "cat=1\n", w.folder + "\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "sandbox=\n") || !strings.Contains(r.stdout, "sandbox=") {
		t.Errorf("the command did not run in a sandbox (no LNK_SANDBOX):\n%s", r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, fakeKey) {
		t.Error("the session read the hidden ~/.ssh/id_rsa")
	}
	if strings.Contains(r.stdout, "curl=0") || hits.Load() != 0 {
		t.Errorf("the session reached a host port directly (curl: %s, connections: %d)", r.stdout, hits.Load())
	}
	if w.daemonPID() == 0 {
		t.Error("no daemon runs after the session: it should have started on demand")
	}
	// No command and no pty: the login shell reads its commands from
	// the connection.
	a := append(b.opts(), "-T", "-p", fmt.Sprint(b.port), b.host())
	if r := b.run("echo IN-$((2*3))-$LNK_SANDBOX\nexit 5\n", "ssh", a...); r.code != 5 || !strings.Contains(r.stdout, "IN-6-") || strings.Contains(r.stdout, "IN-6-\n") {
		t.Errorf("ssh -T host (a shell on stdin): exit %d, %q %q; want 5 and the shell's output from inside", r.code, r.stdout, r.stderr)
	}
	var found bool
	for _, s := range w.list() {
		if s.Name == "ssh 127.0.0.1" && s.ExitCode != nil && *s.ExitCode == 7 {
			found = true
		}
	}
	if !found {
		t.Errorf("the session is not listed as sandbox \"ssh 127.0.0.1\" exited 7: %+v", w.list())
	}
}

// sshShell drives `ssh -tt host` on a pty: the login shell runs inside
// with job control, cannot read the hidden key, and Ctrl-C ends a sleep
// while the shell survives.
func sshShell(t *testing.T, w *world, b *sshBox) {
	_, ptmx, out, done := startPty(t, b)
	// Each marker is computed by the shell, so the terminal's echo of
	// the typed line never matches it.
	say := func(line, want string, d time.Duration) {
		t.Helper()
		if _, err := ptmx.Write([]byte(line + "\r")); err != nil {
			t.Fatal(err)
		}
		if !waitFor(out, want, d) {
			t.Fatalf("after %q, no %q within %v; the terminal shows:\n%s\nsshd: %s", line, want, d, out, b.log)
		}
	}
	say("echo READY-$((40+2))", "READY-42", 30*time.Second)
	say("echo ID-$(id -u)-$((1+1))", fmt.Sprintf("ID-%d-2", os.Getuid()), 10*time.Second)
	say(`echo SB-${LNK_SANDBOX:+in}`, "SB-in", 10*time.Second)
	say(`echo JC-$(case $- in *m*) echo on;; *) echo off;; esac)`, "JC-on", 10*time.Second)
	say("cat ~/.ssh/id_rsa; echo CAT-$?", "CAT-1", 10*time.Second)
	say("echo SLEEP-$((1+2)); sleep 60", "SLEEP-3", 10*time.Second)
	time.Sleep(300 * time.Millisecond) // let sleep start
	start := time.Now()
	if _, err := ptmx.Write([]byte{3}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	say("echo ALIVE-$?-$((2+3))", "ALIVE-130-5", 20*time.Second)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Ctrl-C took %v to end the sleep", d)
	}
	if _, err := ptmx.Write([]byte("exit 4\r")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
			t.Errorf("ssh -tt: %v, want the shell's exit code 4", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the session did not end after exit; terminal:\n%s", out)
	}
	if strings.Contains(out.String(), fakeKey) {
		t.Error("the shell read the hidden ~/.ssh/id_rsa")
	}
}

// startPty runs `ssh -tt [args] host [command]` on a pty and returns the
// terminal's master, what it shows, and the client's end.
func startPty(t *testing.T, b *sshBox, command ...string) (*exec.Cmd, *os.File, *syncBuffer, chan error) {
	t.Helper()
	if os.Geteuid() != 0 && !ptyHasTTYGroup(t) {
		// sshd chowns a session's pty to the tty group; unprivileged, it
		// can only when devpts already gives new ptys that group (gid=5).
		t.Skip("sshd running as a non-root user cannot hand a pty over here (devpts lacks gid=5, so its chown fails): the pty session is tested as root")
	}
	a := append(b.opts(), "-tt", "-p", fmt.Sprint(b.port), b.host())
	cmd := exec.Command("ssh", append(a, command...)...)
	cmd.Env = b.clientEnv()
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	go io.Copy(out, ptmx)
	done, exited := make(chan error, 1), make(chan struct{})
	go func() { done <- cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
		}
		ptmx.Close()
	})
	return cmd, ptmx, out, done
}

// sshPtyCommand: `ssh -tt host CMD` with no job control: Ctrl-C ends the
// command (the wall ignores it), and a dropped connection ends the
// sandbox with everything in it.
func sshPtyCommand(t *testing.T, w *world, b *sshBox) {
	_, ptmx, out, done := startPty(t, b, "echo GO-$((3+4)); sleep 60")
	if !waitFor(out, "GO-7", 30*time.Second) {
		t.Fatalf("the command did not start; terminal:\n%s\nsshd: %s", out, b.log)
	}
	time.Sleep(300 * time.Millisecond)
	ptmx.Write([]byte{3})
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Errorf("after Ctrl-C: %v, want the command's 130 (SIGINT)", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("Ctrl-C did not end the command; terminal:\n%s", out)
	}

	marker := fmt.Sprintf("lnk-ssh-hangup-%d", os.Getpid())
	client, _, out, _ := startPty(t, b, "echo UP-$((1+1)); sh -c 'sleep 600; : "+marker+"'")
	if !waitFor(out, "UP-2", 30*time.Second) {
		t.Fatalf("the command did not start; terminal:\n%s", out)
	}
	for i := 0; i < 100 && len(processesWith(marker)) == 0; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if len(processesWith(marker)) == 0 {
		t.Fatal("the sandboxed command is not running")
	}
	client.Process.Kill() // the connection drops: sshd hangs the terminal up
	for i := 0; i < 400 && len(processesWith(marker)) > 0; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if pids := processesWith(marker); len(pids) > 0 {
		t.Errorf("the sandbox outlived its dropped SSH connection: pids %v", pids)
	}
}

// ptyHasTTYGroup reports whether a new pty belongs to the tty group.
func ptyHasTTYGroup(t *testing.T) bool {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(tty.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return st.Gid == 5
}

// outsideDir is a folder outside the sandbox's reach for writes: beside
// the test's sources (the sandbox's /tmp is its own, so a folder under
// the host's /tmp would only swallow the copy, not refuse it).
func outsideDir(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(wd, "ssh-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	os.Chmod(d, 0o755)
	if strings.HasPrefix(d, "/tmp/") {
		t.Skipf("the sources are under /tmp (%s), which is the sandbox's own: no folder outside to refuse writes in", d)
	}
	return d
}

// sshCopy: scp (the SFTP protocol, and the old one with -O) writes into
// the folder, and cannot write outside it nor read the hidden key.
func sshCopy(t *testing.T, w *world, b *sshBox) {
	out := outsideDir(t)
	src := filepath.Join(b.dir, "payload.txt")
	if err := os.WriteFile(src, []byte("payload\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, proto := range []struct{ name, flag string }{{"sftp", "-s"}, {"legacy", "-O"}} {
		in := filepath.Join(w.folder, "scp-"+proto.name+".txt")
		if r := b.scp(proto.flag, src, b.host()+":"+in); r.code != 0 {
			t.Errorf("scp %s into the folder: exit %d: %s\nsshd: %s", proto.name, r.code, r.stderr, b.log)
		} else if data, _ := os.ReadFile(in); string(data) != "payload\n" {
			t.Errorf("scp %s into the folder wrote %q", proto.name, data)
		}
		outside := filepath.Join(out, "scp-"+proto.name+".txt")
		if r := b.scp(proto.flag, src, b.host()+":"+outside); r.code == 0 {
			t.Errorf("scp %s outside the folder succeeded", proto.name)
		}
		if _, err := os.Lstat(outside); err == nil {
			t.Errorf("scp %s wrote %s, outside the folder", proto.name, outside)
		}
		got := filepath.Join(b.dir, "stolen-"+proto.name)
		if r := b.scp(proto.flag, b.host()+":"+filepath.Join(w.home, ".ssh", "id_rsa"), got); r.code == 0 {
			t.Errorf("scp %s read the hidden key", proto.name)
		}
		if data, _ := os.ReadFile(got); strings.Contains(string(data), fakeKey) {
			t.Errorf("scp %s copied the hidden key out", proto.name)
		}
	}
}

// sshSftp: sftp, on sshd's internal-sftp and on the sftp-server program,
// writes into the folder only and cannot read the hidden key.
func sshSftp(t *testing.T, w *world, b *sshBox) {
	out := outsideDir(t)
	src := filepath.Join(b.dir, "payload.txt")
	if err := os.WriteFile(src, []byte("payload\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"sftp", "sftp-ext"} {
		in := filepath.Join(w.folder, sub+".txt")
		if r := b.sftp(sub, fmt.Sprintf("put %s %s\n", src, in)); r.code != 0 {
			t.Errorf("sftp (%s) put into the folder: exit %d: %s %s\nsshd: %s", sub, r.code, r.stdout, r.stderr, b.log)
		} else if data, _ := os.ReadFile(in); string(data) != "payload\n" {
			t.Errorf("sftp (%s) wrote %q", sub, data)
		}
		outside := filepath.Join(out, sub+".txt")
		if r := b.sftp(sub, fmt.Sprintf("put %s %s\n", src, outside)); r.code == 0 {
			t.Errorf("sftp (%s) put outside the folder succeeded", sub)
		}
		if _, err := os.Lstat(outside); err == nil {
			t.Errorf("sftp (%s) wrote %s, outside the folder", sub, outside)
		}
		got := filepath.Join(b.dir, "stolen-"+sub)
		if r := b.sftp(sub, fmt.Sprintf("get %s %s\n", filepath.Join(w.home, ".ssh", "id_rsa"), got)); r.code == 0 {
			t.Errorf("sftp (%s) read the hidden key", sub)
		}
		if data, _ := os.ReadFile(got); strings.Contains(string(data), fakeKey) {
			t.Errorf("sftp (%s) copied the hidden key out", sub)
		}
	}
}

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

// waitFor waits (bounded) for s to show want.
func waitFor(s *syncBuffer, want string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(s.String(), want) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return strings.Contains(s.String(), want)
}
