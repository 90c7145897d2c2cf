//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"lnk.dev/sandbox/app/apitype"
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
	spec := w.writeSpec("[filesystem]\nallow_write = [\".\"]\n[network]\nendpoints = [\"ask\"]\n")
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
	t.Run("question", func(t *testing.T) { sshQuestion(t, w, b) })
	t.Run("forwarding", func(t *testing.T) { sshForwarding(t, b) })
	t.Run("check", func(t *testing.T) { sshCheck(t, w, b) })
	t.Run("symlinked folder", func(t *testing.T) { sshSymlinkedFolder(t, w, b) })
}

// TestSSHSessionsOtherBinary: the daemon already runs (started by `lnk`,
// as a desktop's would be) and the forced command is another copy of the
// program, so enter runs the wall as a child rather than becoming its
// guard: the terminal still belongs to the session.
func TestSSHSessionsOtherBinary(t *testing.T) {
	w, b := sshWorld(t)
	w.must("list") // starts the daemon from lnkBin
	if w.daemonPID() == 0 {
		t.Fatal("list did not start the daemon")
	}
	data, err := os.ReadFile(lnkBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(b.lnk); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b.lnk, data, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("pty shell", func(t *testing.T) { sshShell(t, w, b) })
	t.Run("pty command", func(t *testing.T) { sshPtyCommand(t, w, b) })
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
	if _, err := exec.LookPath("perl"); err == nil {
		// What makes keeping the terminal safe: nothing inside can push
		// input into it (seccomp refuses TIOCSTI, 0x5412).
		say(`perl -e '$c="x"; print ioctl(STDIN, 0x5412, $c) ? "STI-typed\n" : "STI-$!\n"'`, "STI-Operation not permitted", 10*time.Second)
	}
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

// sshQuestion: with no desktop, a question from inside an SSH session
// waits in the queue, where `lnk sandbox answer` answers it.
func sshQuestion(t *testing.T, w *world, b *sshBox) {
	testenv.NeedCommand(t, "curl", "curl")
	done := make(chan result, 1)
	go func() {
		done <- b.ssh(nil, `curl -sS -m 60 -X POST --data '{"question":"May the SSH session go on?"}' http://lnk.sandbox/ask`)
	}()
	var id string
	for i := 0; i < 200 && id == ""; i++ {
		var qs []apitype.Question
		if err := json.Unmarshal([]byte(w.must("answer", "--json")), &qs); err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if strings.Contains(q.Subject, "May the SSH session go on?") && q.Via == "queue" {
				id = q.ID
			}
		}
		if id == "" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if id == "" {
		t.Fatal("the session's question never waited in the queue")
	}
	w.must("answer", id, "allow")
	select {
	case r := <-done:
		if r.code != 0 || !strings.Contains(r.stdout, `"answer":"allow"`) {
			t.Errorf("the question's answer inside: exit %d, %q %q", r.code, r.stdout, r.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the answered question did not return inside the session")
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
