//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"lnk.dev/sandbox/build/testenv"
)

// sshBox is a private OpenSSH server on 127.0.0.1, with its own host key,
// config and authorized_keys, whose one client key is forced into
// `lnk-sandbox sandbox enter`. It runs as the test's user (root in CI,
// lnkci in the unprivileged run), who is also the one who logs in.
type sshBox struct {
	t       *testing.T
	w       *world
	dir     string // keys, config, authorized_keys, the client's HOME
	lnk     string // dir/lnk-sandbox, a link to the built lnk
	spec    string
	user    string
	port    int
	key     string // the client's private key
	cmd     *exec.Cmd
	log     *syncBuffer // sshd's own log (-e)
	stopped chan struct{}
}

// sshdPath finds sshd, which needs an absolute path to re-execute itself.
func sshdPath(t *testing.T) string {
	for _, p := range []string{"/usr/sbin/sshd", "/usr/local/sbin/sshd"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	if p, err := exec.LookPath("sshd"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	testenv.Missing(t, "sshd", "install the Debian package openssh-server")
	return ""
}

// startSSHD starts sshd for w, with the key forced into
// `enter --spec specFile --folder w.folder`, and stops it (by pid) when
// the test ends.
func startSSHD(t *testing.T, w *world, specFile string) *sshBox {
	t.Helper()
	sshd := sshdPath(t)
	for _, c := range []string{"ssh", "scp", "sftp", "ssh-keygen"} {
		testenv.NeedCommand(t, c, "openssh-client")
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// sshd as root chroots its pre-auth child into its
		// privilege-separation folder; the package's service makes it.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("sshd's privilege-separation folder /run/sshd: %v", err)
		}
	}
	b := &sshBox{t: t, w: w, dir: filepath.Join(w.root, "ssh"), spec: specFile, user: u.Username, log: &syncBuffer{}}
	b.lnk = filepath.Join(b.dir, "lnk-sandbox")
	b.key = filepath.Join(b.dir, "client_key")
	for _, d := range []string{b.dir, filepath.Join(b.dir, "client-home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(lnkBin, b.lnk); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"host_key", "client_key"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", k, "-f", filepath.Join(b.dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	b.authorize(w.folder)
	b.start(sshd)
	return b
}

// authorize writes authorized_keys: the client key, restricted, forced
// into enter for folder, as the README shows it.
func (b *sshBox) authorize(folder string, extra ...string) {
	b.t.Helper()
	pub, err := os.ReadFile(b.key + ".pub")
	if err != nil {
		b.t.Fatal(err)
	}
	cmd := fmt.Sprintf("%s sandbox enter --spec %s --folder %s", shq(b.lnk), shq(b.spec), shq(folder))
	for _, e := range extra {
		cmd += " " + shq(e)
	}
	line := `restrict,pty,command="` + strings.ReplaceAll(cmd, `"`, `\"`) + `" ` + string(pub)
	if err := os.WriteFile(filepath.Join(b.dir, "authorized_keys"), []byte(line), 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// start runs sshd on a free loopback port (a few tries, in case another
// process takes the port between our look and sshd's bind).
func (b *sshBox) start(sshd string) {
	t := b.t
	t.Helper()
	// StrictModes off: the keys live under /tmp, which is open to all,
	// and this sshd serves only this test. Forwarding is left at its
	// default (allowed), so the test shows that `restrict` refuses it.
	// SetEnv gives sessions the world's HOME and runtime folder (sshd
	// would set the account's HOME): the session's daemon and folders are
	// the test's own, and the account's shell reads no rc file of the
	// machine's (sshd runs the forced command through it).
	config := fmt.Sprintf(`ListenAddress 127.0.0.1
SetEnv HOME=%[3]s XDG_RUNTIME_DIR=%[4]s
HostKey %[1]s/host_key
AuthorizedKeysFile %[1]s/authorized_keys
PidFile none
StrictModes no
UsePAM no
UseDNS no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
PrintMotd no
PrintLastLog no
LogLevel VERBOSE
Subsystem sftp internal-sftp
Subsystem sftp-ext %[2]s
`, b.dir, sftpServerPath(t), b.w.home, b.w.runtime)
	cfg := filepath.Join(b.dir, "sshd_config")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	for try := 0; try < 3; try++ {
		b.port = freePort(t)
		b.log = &syncBuffer{}
		b.cmd = exec.Command(sshd, "-D", "-e", "-f", cfg, "-p", fmt.Sprint(b.port))
		b.cmd.Stdout, b.cmd.Stderr = b.log, b.log
		if err := b.cmd.Start(); err != nil {
			t.Fatalf("start sshd: %v", err)
		}
		b.stopped = make(chan struct{})
		go func(cmd *exec.Cmd, stopped chan struct{}) { cmd.Wait(); close(stopped) }(b.cmd, b.stopped)
		if b.waitListening() {
			t.Cleanup(b.stop)
			return
		}
		b.stop()
	}
	t.Fatalf("sshd did not listen on 127.0.0.1; its log:\n%s", b.log)
}

// sftpServerPath is the system's sftp-server, which the external
// subsystem names.
func sftpServerPath(t *testing.T) string {
	for _, p := range []string{"/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server", "/usr/lib/ssh/sftp-server", "/usr/libexec/sftp-server"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	testenv.Missing(t, "sftp-server", "install the Debian package openssh-sftp-server")
	return ""
}

func (b *sshBox) waitListening() bool {
	for i := 0; i < 100; i++ {
		select {
		case <-b.stopped:
			return false
		default:
		}
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", b.port), time.Second); err == nil {
			c.Close()
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// stop ends sshd by its pid and waits (bounded) for it.
func (b *sshBox) stop() {
	if b.cmd == nil || b.cmd.Process == nil {
		return
	}
	b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.stopped:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-b.stopped
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// opts are the client options every ssh, scp and sftp call shares: this
// key only, no config, no known_hosts, never a prompt.
func (b *sshBox) opts() []string {
	return []string{"-F", "/dev/null", "-i", b.key, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
		"-o", "ConnectTimeout=10"}
}

// host is user@127.0.0.1.
func (b *sshBox) host() string { return b.user + "@127.0.0.1" }

// clientEnv is the environment of the ssh, scp and sftp clients: a HOME
// of their own (not the sandbox's), TERM dumb for plain output.
func (b *sshBox) clientEnv() []string {
	return []string{"HOME=" + filepath.Join(b.dir, "client-home"), "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb"}
}

// run runs a client program (bounded to a minute) with stdin from input.
func (b *sshBox) run(input string, prog string, args ...string) result {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env, cmd.Dir = b.clientEnv(), b.dir
	cmd.Stdin = strings.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		// Errorf, not Fatalf: a subtest or a goroutine may call this.
		b.t.Errorf("%s %v: %v", prog, args, err)
		r.code = -1
	}
	return r
}

// ssh runs `ssh [args] host [command]`.
func (b *sshBox) ssh(args []string, command ...string) result {
	b.t.Helper()
	a := append(b.opts(), "-p", fmt.Sprint(b.port))
	a = append(append(a, args...), b.host())
	return b.run("", "ssh", append(a, command...)...)
}

// scp copies with scp's options first (-O for the old protocol).
func (b *sshBox) scp(args ...string) result {
	b.t.Helper()
	a := append(b.opts(), "-P", fmt.Sprint(b.port))
	return b.run("", "scp", append(a, args...)...)
}

// sftp runs one batch of sftp commands on subsystem ("sftp" is sshd's
// internal-sftp, "sftp-ext" the sftp-server program).
func (b *sshBox) sftp(subsystem, batch string) result {
	b.t.Helper()
	a := append(b.opts(), "-P", fmt.Sprint(b.port), "-s", subsystem, "-b", "-", b.host())
	return b.run(batch, "sftp", a...)
}
