package confine

import (
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// newWeakBox is a box for the weak mode, on a free loopback port (the
// weak mode's relay listens on the host's loopback).
func newWeakBox(t *testing.T) *box {
	t.Helper()
	if abi := landlockABI(); abi < weakABI {
		t.Skipf("this kernel's Landlock ABI is %d; the weak mode needs %d (a kernel, not a package, is missing)", abi, weakABI)
	}
	b := newBareBox(t)
	b.weak = true
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	b.spec = victimSpec
	return b
}

func TestWeakModeRunsAndSaysSo(t *testing.T) {
	b := newWeakBox(t)
	r := b.sh("echo hi; echo \"$TMPDIR\" >&2; exit 3")
	if r.code != 3 || r.stdout != "hi\n" || !strings.Contains(r.stderr, "WEAK SANDBOX") || !strings.Contains(r.stderr, "NOT enforced") {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains(r.stderr, "lnk-weak-") {
		t.Fatalf("TMPDIR is not the sandbox's own: %s", r.stderr)
	}
	cmd, err := Wrap(b.request("true"))
	if err != nil || cmd.Argv[3] != "--weak" || strings.Contains(strings.Join(cmd.Argv, " "), "bwrap") {
		t.Fatalf("weak command: %v %v", cmd, err)
	}
	b.weak = false
	if cmd, err := Wrap(b.request("true")); err == nil && cmd.Argv[3] == "--weak" {
		t.Fatal("the weak mode without asking")
	}
}

func TestWeakModeDenials(t *testing.T) {
	b := newWeakBox(t)
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	victim := exec.Command("sleep", "300")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = victim.Process.Kill(); _ = victim.Wait() }()
	pid := strconv.Itoa(victim.Process.Pid)
	b.mustFail(t, map[string]string{
		"write home":      "echo x > ~/notes.txt",
		"write host /tmp": "echo x > /tmp/lnk-weak-test-" + pid,
		"kill outside":    "kill " + pid,
		"memory outside":  "python3 -c \"open('/proc/" + pid + "/mem','rb')\"",
		"exec outside":    "cp /bin/true $TMPDIR/t && $TMPDIR/t",
		"direct tcp":      "curl -s --noproxy '*' --max-time 3 http://" + other.Addr().String() + "/",
		"listen tcp":      "python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen()'",
	})
	// Controls: the tools the denials use work for what is allowed.
	b.mustPass(t, map[string]string{
		"python tcp socket": "python3 -c 'import socket; socket.socket().close()'",
		"python own memory": "python3 -c \"open('/proc/self/mem','rb')\"",
		"kill own child":    "sleep 30 & kill $!",
		"write own tmp":     "echo x > $TMPDIR/x",
	})
	for _, v := range []string{"unix-socket", "unix-socketpair", "udp-dns", "io-uring", "ptrace-init", "userns"} {
		if got := b.victim(v); !strings.HasPrefix(got, "DENIED") || strings.Contains(got, "denied, but") {
			t.Errorf("%s: %s", v, got)
		}
	}
	if _, err := os.Stat("/tmp/lnk-weak-test-" + pid); err == nil {
		os.Remove("/tmp/lnk-weak-test-" + pid)
		t.Fatal("the weak sandbox wrote the host's /tmp")
	}
}

func TestWeakModeProxyAndLifetime(t *testing.T) {
	b := newWeakBox(t)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hello weak")
	}), ReadHeaderTimeout: 5 * time.Second}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	r := b.sh("curl -sS --noproxy '' -p --max-time 10 http://" + l.Addr().String() + "/")
	if r.code != 0 || r.stdout != "hello weak" {
		t.Fatalf("through the proxy: %+v", r)
	}
	marker := strconv.Itoa(int(time.Now().UnixNano()%100000) + 400000)
	if r := b.sh("sleep " + marker + " & setsid sleep " + marker + " & echo x > " + b.folder + "/w"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if out, _ := exec.Command("pgrep", "-f", "sleep "+marker).Output(); len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("background processes outlived the weak sandbox: %s", out)
	}
	if data, _ := os.ReadFile(b.folder + "/w"); string(data) != "x\n" {
		t.Fatalf("write in the folder: %q", data)
	}
}
