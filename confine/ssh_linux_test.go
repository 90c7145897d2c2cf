package confine

import (
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"lnk.dev/sandbox/build/testenv"
)

// TestSSHThroughConnect runs ssh inside the sandbox as git would (with
// GIT_SSH_COMMAND) to a private sshd on the host's loopback: the only way
// there is `lnk sandbox connect` through the proxy.
func TestSSHThroughConnect(t *testing.T) {
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		sshd = "/usr/sbin/sshd"
		if _, err := os.Stat(sshd); err != nil {
			testenv.Missing(t, "sshd", "install the Debian package openssh-server")
		}
	}
	testenv.NeedCommand(t, "ssh-keygen", "openssh-client")
	testenv.NeedCommand(t, "ssh", "openssh-client")
	b := newBox(t)
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(filepath.Dir(b.home), "sshd")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	hostKey, clientKey := filepath.Join(dir, "host"), filepath.Join(b.folder, "id")
	for _, k := range []string{hostKey, clientKey} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	pub, _ := os.ReadFile(clientKey + ".pub")
	auth := filepath.Join(dir, "authorized_keys")
	writeFile(t, auth, string(pub))
	port := startSSHD(t, sshd, dir, hostKey, auth)
	opts := "-F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR -i ./id -p " +
		strconv.Itoa(port) + " " + me.Username + "@127.0.0.1"
	r := b.sh("cd " + b.folder + " && eval \"$GIT_SSH_COMMAND " + opts + " echo via-ssh\"")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "via-ssh" {
		t.Fatalf("ssh through the proxy: %+v", r)
	}
	// Without the proxy command there is no way out.
	r = b.sh("cd " + b.folder + " && ssh -o ConnectTimeout=3 " + opts + " echo direct")
	if r.code == 0 {
		t.Fatalf("ssh went round the proxy: %+v", r)
	}
}

// startSSHD runs a private sshd on 127.0.0.1 until the test ends.
func startSSHD(t *testing.T, sshd, dir, hostKey, auth string) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cfg := filepath.Join(dir, "sshd_config")
	writeFile(t, cfg, "Port "+strconv.Itoa(port)+"\nListenAddress 127.0.0.1\nHostKey "+hostKey+
		"\nAuthorizedKeysFile "+auth+"\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"+
		"UsePAM no\nStrictModes no\nPidFile none\nPermitRootLogin prohibit-password\n")
	if os.Geteuid() == 0 {
		_ = os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation folder
	}
	srv := exec.Command(sshd, "-D", "-e", "-f", cfg)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	for i := 0; ; i++ {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			c.Close()
			break
		}
		if i > 100 {
			t.Fatalf("sshd did not start: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return port
}
