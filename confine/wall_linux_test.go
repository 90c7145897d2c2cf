package confine

import (
	"net"
	"strings"
	"testing"

	"lnk.dev/sandbox/build/testenv"
)

func TestWallRunsCommand(t *testing.T) {
	b := newBox(t)
	r := b.sh("echo hello; echo err >&2; exit 3")
	if r.code != 3 || r.stdout != "hello\n" || !strings.Contains(r.stderr, "err") {
		t.Fatalf("got %+v", r)
	}
}

const victimSpec = "[filesystem]\nallow_write = [\".\"]\n[commands]\nallow = [\".\"]\n"

func TestVictimsDenied(t *testing.T) {
	b := newBox(t)
	b.spec = victimSpec
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, name := range []string{
		"unix-socket", "unix-socketpair", "unix-socket-high-bits", "io-uring",
		"ptrace-init", "proc1-mem", "proc1-environ", "tiocsti", "tiocsti-high-bits", "tioclinux",
		"userns", "clone-userns", "mount", "bpf", "keyctl", "perf", "userfaultfd",
		"tcp-direct", "tcp-outside", "udp-dns", "exec-tmp",
	} {
		t.Run(name, func(t *testing.T) {
			b.t = t
			got := b.victim(name, "LNK_TARGET="+l.Addr().String())
			if !strings.HasPrefix(got, "DENIED") || strings.Contains(got, "denied, but") {
				t.Fatalf("%s: %s", name, got)
			}
			t.Log(got)
		})
	}
}

func TestRelayAnswersOnBothLoopbacks(t *testing.T) {
	b := newBox(t)
	b.spec = victimSpec
	if got := b.victim("relay-proxy"); got != "DENIED: relay answers" {
		t.Fatalf("relay: %s", got)
	}
}

func TestDevicesInside(t *testing.T) {
	testenv.NeedCommand(t, "script", "bsdutils")
	b := newBox(t)
	b.mustPass(t, map[string]string{
		"shm":        "echo x > /dev/shm/lnk-test && rm /dev/shm/lnk-test",
		"urandom":    "head -c 8 /dev/urandom | wc -c | grep -q 8",
		"pty":        "script -qec true /dev/null",
		"dev/null":   "echo x > /dev/null",
		"mkfifo tmp": "mkfifo /tmp/f && test -p /tmp/f",
	})
}
