//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/build/testenv"
)

// A process inside a sandbox cannot reach the control socket: the
// runtime folder is hidden, new unix sockets are refused, the proxy does
// not lead there, and init's session cannot be taken over.
func TestSandboxCannotReachControlSocket(t *testing.T) {
	socat := testenv.NeedCommand(t, "socat", "socat")
	curl := testenv.NeedCommand(t, "curl", "curl")
	for _, withRuntime := range []bool{true, false} {
		name := "xdg-runtime-dir"
		if !withRuntime {
			name = "cache-fallback-inside-home"
		}
		t.Run(name, func(t *testing.T) {
			w := newWorld(t, withRuntime)
			w.must("list")
			sock := filepath.Join(w.paths().Runtime, "control.sock")
			before := w.list()
			script := strings.Join([]string{
				// each attempt prints REACHED only if it gets an answer
				socat + " -t2 - UNIX-CONNECT:" + sock + " </dev/null && echo REACHED-socat",
				curl + " -fsS --max-time 5 --unix-socket " + sock + " http://" + apitype.Host + "/v0/list && echo REACHED-curl",
				"ls -A " + filepath.Dir(sock) + " 2>/dev/null | grep -q . && echo REACHED-ls",
				curl + " -fsS --max-time 5 --noproxy '' http://" + apitype.Host + "/v0/list && echo REACHED-proxy",
				curl + " -sS --max-time 5 --noproxy '' -o /dev/null -w 'session:%{http_code}\\n' -H 'Connection: Upgrade' -H 'Upgrade: lnk-session' http://lnk.sandbox/session",
				"true",
			}, "; ")
			r := w.lnk("run", "--", "sh", "-c", script)
			t.Logf("inside: %s%s", r.stdout, r.stderr)
			if strings.Contains(r.stdout, "REACHED") {
				t.Errorf("a sandboxed process reached the daemon:\n%s\n%s", r.stdout, r.stderr)
			}
			// Through the relay the proxy serves the sandbox's own socket,
			// which has no unix peer credentials: refused with 403 before the
			// "already has one" check (409) is reached. Either is a refusal.
			if !strings.Contains(r.stdout, "session:403") && !strings.Contains(r.stdout, "session:409") {
				t.Errorf("a second session from inside was not refused (403 or 409): %q %q", r.stdout, r.stderr)
			}
			after := w.list()
			if len(after) != len(before)+1 {
				t.Errorf("the registry changed beyond the one run: %d -> %d", len(before), len(after))
			}
		})
	}
}

// otherUser makes (once) a second user and returns its name.
func otherUser(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("creating a second user needs root; run this test as root")
	}
	useradd := testenv.NeedCommand(t, "useradd", "passwd")
	testenv.NeedCommand(t, "setpriv", "util-linux")
	const name = "lnke2eother"
	if _, err := user.Lookup(name); err != nil {
		if out, err := exec.Command(useradd, "-M", "-r", "-s", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
			t.Fatalf("useradd: %v: %s", err, out)
		}
		t.Cleanup(func() { exec.Command("userdel", name).Run() })
	}
	return name
}

// asUser runs argv as user name with env.
func asUser(t *testing.T, name string, env []string, argv ...string) (string, error) {
	t.Helper()
	args := append([]string{"--reuid=" + name, "--regid=" + name, "--init-groups", "--"}, argv...)
	cmd := exec.Command("setpriv", args...)
	cmd.Env, cmd.Dir = env, "/"
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A second user cannot use the first user's socket: the folder keeps them
// out, and with the folder opened by mistake the daemon still refuses
// them at accept (SO_PEERCRED).
func TestOtherUserRefused(t *testing.T) {
	other := otherUser(t)
	socat := testenv.NeedCommand(t, "socat", "socat")
	w := newWorld(t, true)
	w.must("list")
	sock := filepath.Join(w.paths().Runtime, "control.sock")
	req := `printf 'GET /v0/list HTTP/1.1\r\nHost: ` + apitype.Host + `\r\nConnection: close\r\n\r\n' | ` + socat + " -t2 - UNIX-CONNECT:" + sock
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent"}
	out, err := asUser(t, other, env, "sh", "-c", req)
	t.Logf("other user, closed folder: %v %s", err, out)
	if err == nil || strings.Contains(out, "200 OK") {
		t.Fatalf("another user talked to the daemon: %v %s", err, out)
	}
	// The other user's lnk, pointed at our runtime folder, refuses it and
	// starts nothing there.
	otherHome := filepath.Join(w.root, "other")
	os.Mkdir(otherHome, 0o700)
	if u, err := user.Lookup(other); err == nil {
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		os.Chown(otherHome, uid, gid)
	}
	out, err = asUser(t, other, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + otherHome, "XDG_RUNTIME_DIR=" + w.runtime}, lnkBin, "sandbox", "list")
	t.Logf("other user lnk: %v %s", err, out)
	if err == nil || !strings.HasPrefix(out, "lnk: ") || !strings.Contains(out, w.runtime) {
		t.Errorf("another user's lnk used our runtime folder: %v %s", err, out)
	}
	// Open the door by mistake: the peer check still stands.
	for _, p := range []string{w.root, w.runtime, filepath.Dir(sock)} {
		os.Chmod(p, 0o711)
	}
	os.Chmod(sock, 0o666)
	out, _ = asUser(t, other, env, "sh", "-c", req)
	for _, p := range []string{w.runtime, filepath.Dir(sock)} {
		os.Chmod(p, 0o700)
	}
	os.Chmod(sock, 0o600)
	t.Logf("other user, open socket: %s", out)
	if strings.Contains(out, "HTTP/1.1") {
		t.Fatalf("another user got an answer through an open socket: %s", out)
	}
	var st apitype.Status
	if err := json.Unmarshal([]byte(w.must("status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Refused < 1 {
		t.Errorf("the daemon counted %d refused peers, want at least 1", st.Refused)
	}
}

// The control socket refuses what a browser would send: an Origin, a
// Referer, or another Host.
func TestControlRefusesBrowserRequests(t *testing.T) {
	curl := testenv.NeedCommand(t, "curl", "curl")
	w := newWorld(t, true)
	w.must("list")
	sock := filepath.Join(w.paths().Runtime, "control.sock")
	code := func(host string, hdr ...string) string {
		args := []string{"-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", "--unix-socket", sock}
		for _, h := range hdr {
			args = append(args, "-H", h)
		}
		out, _ := exec.Command(curl, append(args, "http://"+host+"/v0/list")...).Output()
		return string(out)
	}
	if c := code(apitype.Host); c != "200" {
		t.Fatalf("a plain request got %s", c)
	}
	for name, c := range map[string]string{
		"origin":  code(apitype.Host, "Origin: http://evil.example"),
		"referer": code(apitype.Host, "Referer: http://evil.example/"),
		"host":    code("localhost"),
	} {
		if c != "403" {
			t.Errorf("a request with a bad %s got %s, want 403", name, c)
		}
	}
}

// lnk inside a sandbox says plainly that the daemon is out of reach, and
// starts nothing there.
func TestVerbsInsideSandbox(t *testing.T) {
	w := newWorld(t, true)
	r := w.lnk("run", "--", "/run/lnk/lnk", "sandbox", "run", "--", "true") // lnk as bound inside
	if r.code != 125 || !strings.Contains(r.stderr, "cannot be reached from inside a sandbox") {
		t.Errorf("run inside run: exit %d: %s", r.code, r.stderr)
	}
}
