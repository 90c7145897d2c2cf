package confine

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"lnk.dev/sandbox/build/testenv"
)

func TestExitCodesAndSignals(t *testing.T) {
	b := newBox(t)
	for _, c := range []struct {
		script string
		code   int
	}{
		{"exit 0", 0},
		{"exit 42", 42},
		{"kill -TERM $$", 128 + 15},
		{"kill -KILL $$", 128 + 9},
	} {
		if r := b.sh(c.script); r.code != c.code {
			t.Errorf("%q: exit %d, want %d (%s)", c.script, r.code, c.code, r.stderr)
		}
	}
	if r := b.run("", "no-such-command-here"); r.code != exitNotFound {
		t.Errorf("missing command: %+v", r)
	}
}

func TestStdioFlows(t *testing.T) {
	b := newBox(t)
	r := b.run("line one\nline two\n", "/bin/sh", "-c", "cat; echo to-err >&2")
	if r.stdout != "line one\nline two\n" || strings.TrimSpace(r.stderr) != "to-err" || r.code != 0 {
		t.Fatalf("%+v", r)
	}
}

func TestEnvironmentInside(t *testing.T) {
	b := newBox(t)
	r := b.sh(`echo "$HTTP_PROXY|$https_proxy|$ALL_PROXY|$NO_PROXY|$TMPDIR|$LNK_SANDBOX|$BROWSER"; echo "$GIT_SSH_COMMAND"; echo "${SSH_AUTH_SOCK:-none}"`)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	pu := "http://" + testID + ":" + testSecret + "@127.0.0.1:3128"
	want := pu + "|" + pu + "|" + pu + "|localhost,127.0.0.1,::1|/tmp|" + testID + "|" + InnerOpener
	if len(lines) != 3 || lines[0] != want || !strings.Contains(lines[1], InnerLnk+" sandbox connect %h %p") || lines[2] != "none" {
		t.Fatalf("env inside:\n%s\nwant first line %s", r.stdout, want)
	}
	// The openers are lnk, first on PATH, and ask the proxy's open route.
	r = b.sh(`"$BROWSER" https://example.com/a; echo "$?"; for n in xdg-open sensible-browser x-www-browser www-browser; do command -v $n; done; xdg-open https://example.com/b; echo "$?"`)
	want = "3\n" + strings.Join([]string{InnerOpener, OpenerDir + "/sensible-browser", OpenerDir + "/x-www-browser", OpenerDir + "/www-browser"}, "\n") + "\n3\n"
	if r.stdout != want || !strings.Contains(r.stderr, "the test says no") {
		t.Fatalf("openers inside: %+v\nwant stdout %q", r, want)
	}
	b.proxy.mu.Lock()
	opened := strings.Join(b.proxy.opened, "\n")
	b.proxy.mu.Unlock()
	if opened != `{"url":"https://example.com/a"}`+"\n"+`{"url":"https://example.com/b"}` {
		t.Errorf("the open route got %q", opened)
	}
}

func TestSecretNotOnCommandLine(t *testing.T) {
	b := newBox(t)
	cmd, err := Wrap(b.request("true"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(cmd.Argv, " "), testSecret) {
		t.Fatalf("the secret is on the command line: %q", cmd.Argv)
	}
}

func TestBackgroundProcessesDie(t *testing.T) {
	testenv.NeedCommand(t, "pgrep", "procps")
	b := newBox(t)
	marker := strconv.Itoa(int(time.Now().UnixNano()%100000) + 200000)
	r := b.sh("sleep " + marker + " & sleep " + marker + " & echo started")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	out, _ := exec.Command("pgrep", "-f", "sleep "+marker).Output()
	if len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("background processes outlived the sandbox: %s", out)
	}
}

// TestSignalThroughGuard sends SIGTERM to the wrapped command (the guard)
// and expects the command inside to get it.
func TestSignalThroughGuard(t *testing.T) {
	b := newBox(t)
	cmd, err := Wrap(b.request("/bin/sh", "-c", "trap 'echo got-term; exit 7' TERM; echo ready; while :; do sleep 0.05; done"))
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(cmd.Argv[0], cmd.Argv[1:]...)
	c.Env, c.Dir = cmd.Env, cmd.Dir
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	if line, _ := br.ReadString('\n'); line != "ready\n" {
		t.Fatalf("got %q", line)
	}
	_ = c.Process.Signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(br)
	err = c.Wait()
	if c.ProcessState.ExitCode() != 7 || !strings.Contains(string(rest), "got-term") {
		t.Fatalf("exit %d, output %q, err %v", c.ProcessState.ExitCode(), rest, err)
	}
}

func TestExecOnlyFromAllowed(t *testing.T) {
	b := newBox(t)
	tool := filepath.Join(b.home, "tools", "mytrue")
	writeFile(t, tool, "#!/bin/sh\nexit 0\n")
	os.Chmod(tool, 0o755)
	writeFile(t, filepath.Join(b.folder, "run.sh"), "#!/bin/sh\necho local\n")
	os.Chmod(filepath.Join(b.folder, "run.sh"), 0o755)
	if r := b.run("", tool); r.code != exitNoExec {
		t.Fatalf("a program outside [commands] ran: %+v", r)
	}
	if r := b.sh(tool); r.code == 0 {
		t.Fatalf("a program outside [commands] ran from a shell: %+v", r)
	}
	b.spec = victimSpec + "\n"
	b.spec = strings.Replace(b.spec, `allow = ["."]`, `allow = [".", "~/tools"]`, 1)
	if r := b.run("", tool); r.code != 0 {
		t.Fatalf("an allowed program did not run: %+v", r)
	}
	if r := b.run("", filepath.Join(b.folder, "run.sh")); r.code != 0 || r.stdout != "local\n" {
		t.Fatalf("the folder's own program: %+v", r)
	}
}

func TestThroughProxy(t *testing.T) {
	testenv.NeedCommand(t, "curl", "curl")
	b := newBox(t)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hello from outside")
	}), ReadHeaderTimeout: 5 * time.Second}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	url := "http://" + l.Addr().String() + "/"
	r := b.sh("curl -sS --noproxy '' -p --max-time 10 " + url)
	if r.code != 0 || r.stdout != "hello from outside" {
		t.Fatalf("curl through the proxy: %+v", r)
	}
	// lnk sandbox connect: stdio through a CONNECT tunnel.
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		c, err := echo.Accept()
		if err == nil {
			_, _ = io.Copy(c, c)
			c.Close()
		}
	}()
	host, port, _ := net.SplitHostPort(echo.Addr().String())
	r = b.run("ping\n", InnerLnk, "sandbox", "connect", host, port)
	if r.stdout != "ping\n" {
		t.Fatalf("connect: %+v", r)
	}
	r = b.run("", InnerLnk, "sandbox", "connect", "example.com", "22")
	if r.code == 0 || !strings.Contains(r.stderr, "refused") {
		t.Fatalf("connect to a refused host: %+v", r)
	}
}

func TestFailsClosedWithoutProxy(t *testing.T) {
	b := newBox(t)
	b.proxy.setHealth(http.StatusServiceUnavailable)
	r := b.sh("touch " + b.folder + "/ran")
	if r.code != exitFailure || !strings.Contains(r.stderr, "did not run") {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(filepath.Join(b.folder, "ran")); err == nil {
		t.Fatal("the command ran without its way out")
	}
	b.proxy.setHealth(0)
	b.proxy.srv.Close()
	r = b.sh("touch " + b.folder + "/ran")
	if r.code != exitFailure {
		t.Fatalf("with the proxy gone: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(b.folder, "ran")); err == nil {
		t.Fatal("the command ran without its proxy")
	}
}

func TestSession(t *testing.T) {
	b := newBox(t)
	events := make(chan map[string]any, 4)
	b.proxy.setSession(func(c net.Conn, brw *bufio.ReadWriter) {
		defer c.Close()
		dec := json.NewDecoder(brw)
		var ev map[string]any
		if dec.Decode(&ev) != nil {
			return
		}
		events <- ev
		_, _ = io.WriteString(c, `{"cmd":"pause"}`+"\n"+`{"cmd":"resume"}`+"\n"+`{"cmd":"stop"}`+"\n")
		_ = dec.Decode(&ev)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan result, 1)
	go func() { done <- b.sh("sleep 30") }()
	select {
	case ev := <-events:
		if ev["event"] != "start" || ev["pid"] == nil {
			t.Fatalf("start event: %v", ev)
		}
	case <-ctx.Done():
		t.Fatal("no start event")
	}
	select {
	case r := <-done:
		if r.code != 128+15 {
			t.Fatalf("stop: %+v", r)
		}
	case <-ctx.Done():
		t.Fatal("stop did not end the sandbox")
	}
	// The daemon going away ends the command, fail closed.
	b.proxy.setSession(func(c net.Conn, brw *bufio.ReadWriter) {
		_, _ = brw.ReadString('\n')
		c.Close()
	})
	if r := b.sh("sleep 30"); r.code != exitFailure || !strings.Contains(r.stderr, "daemon went away") {
		t.Fatalf("session dropped: %+v", r)
	}
}

// TestKilledGuardLitterIsAdopted kills the wrapped command with SIGKILL:
// the sandbox must die with it, and the placeholders it leaves must be
// removed by the next run.
func TestKilledGuardLitterIsAdopted(t *testing.T) {
	testenv.NeedCommand(t, "pgrep", "procps")
	b := newBox(t)
	writeFile(t, filepath.Join(b.folder, "a"), "a")
	marker := strconv.Itoa(int(time.Now().UnixNano()%100000) + 300000)
	cmd, err := Wrap(b.request("/bin/sh", "-c", "echo ready; sleep "+marker))
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(cmd.Argv[0], cmd.Argv[1:]...)
	c.Env, c.Dir = cmd.Env, cmd.Dir
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("got %q", line)
	}
	if _, err := os.Stat(filepath.Join(b.folder, ".bashrc")); err != nil {
		t.Fatalf("no placeholder while running: %v", err)
	}
	_ = c.Process.Kill()
	_ = c.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("pgrep", "-f", "sleep "+marker).Output()
		if len(strings.TrimSpace(string(out))) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sandbox outlived its killed guard: %s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := b.sh("true"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	assertNoLitter(t, b.folder, []string{"a"})
}

// TestSessionModes checks --new-session (run) against the kept session
// (enter): with a new session the command's session is the sandbox's own.
func TestSessionModes(t *testing.T) {
	b := newBox(t)
	sid := func() string {
		r := b.sh("cut -d' ' -f6 /proc/self/stat")
		if r.code != 0 {
			t.Fatalf("%+v", r)
		}
		return strings.TrimSpace(r.stdout)
	}
	if got := sid(); got != "1" {
		t.Errorf("run: session %s, want the sandbox's own (1)", got)
	}
	b.keep = true
	if got := sid(); got != "0" {
		t.Errorf("enter: session %s, want the caller's (outside the namespace: 0)", got)
	}
	if r := b.sh("echo kept"); r.code != 0 || r.stdout != "kept\n" {
		t.Errorf("enter: %+v", r)
	}
}

// TestPlaceholdersStayOutOfGit: git inside does not see the placeholders.
func TestPlaceholdersStayOutOfGit(t *testing.T) {
	testenv.NeedCommand(t, "git", "git")
	b := newBox(t)
	writeFile(t, filepath.Join(b.folder, "a.txt"), "a")
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"}, {"-c", "user.email=a@b", "-c", "user.name=A", "commit", "-qm", "a"}} {
		if out, err := execIn(b.folder, "git", args...); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	r := b.sh("cd " + b.folder + " && ls -A | grep -c '^\\.' ; git status --porcelain --untracked-files=all; git add -A && git status --porcelain")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 1 || lines[0] == "0" || lines[0] == "1" {
		t.Fatalf("placeholders show in git (or are missing): %+v", r)
	}
}

// TestTwoSandboxesShareAFolder: the first to end must not lift the
// placeholders the other still stands on.
func TestTwoSandboxesShareAFolder(t *testing.T) {
	b := newBox(t)
	cmd, err := Wrap(b.request("/bin/sh", "-c", "echo ready; read x; echo pwned > .bashrc && echo CREATED; exit 0"))
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(cmd.Argv[0], cmd.Argv[1:]...)
	c.Env, c.Dir = cmd.Env, cmd.Dir
	stdin, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	if line, _ := br.ReadString('\n'); line != "ready\n" {
		t.Fatalf("got %q", line)
	}
	if r := b.sh("true"); r.code != 0 { // a second sandbox comes and goes
		t.Fatalf("%+v", r)
	}
	_, _ = io.WriteString(stdin, "go\n")
	stdin.Close()
	rest, _ := io.ReadAll(br)
	_ = c.Wait()
	if strings.Contains(string(rest), "CREATED") {
		t.Fatal("the second sandbox's end lifted the first's protection")
	}
	assertNoLitter(t, b.folder, nil)
}

// TestCtrlCReachesCommand sends SIGINT to the whole process group of the
// wrapped command, as a terminal's Ctrl-C does: bwrap must survive it and
// the command inside must get it once.
func TestCtrlCReachesCommand(t *testing.T) {
	b := newBox(t)
	cmd, err := Wrap(b.request("/bin/sh", "-c", "n=0; trap 'n=$((n+1))' INT; echo ready; i=0; while [ $n -eq 0 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; sleep 0.3; echo ints=$n; exit 5"))
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(cmd.Argv[0], cmd.Argv[1:]...)
	c.Env, c.Dir = cmd.Env, cmd.Dir
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	if line, _ := br.ReadString('\n'); line != "ready\n" {
		t.Fatalf("got %q", line)
	}
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGINT)
	rest, _ := io.ReadAll(br)
	_ = c.Wait()
	if c.ProcessState.ExitCode() != 5 || strings.TrimSpace(string(rest)) != "ints=1" {
		t.Fatalf("exit %d, output %q", c.ProcessState.ExitCode(), rest)
	}
}

// TestConcurrentStartsInOneFolder: guards starting together make or adopt
// the same placeholders; all run, and nothing is left.
func TestConcurrentStartsInOneFolder(t *testing.T) {
	b := newBox(t)
	const n, rounds = 4, 3 // starts and ends overlap
	res := make(chan result, n*rounds)
	for i := 0; i < n; i++ {
		go func() {
			for j := 0; j < rounds; j++ {
				res <- b.sh("test ! -w .bashrc && echo ok")
			}
		}()
	}
	for i := 0; i < n*rounds; i++ {
		if r := <-res; r.code != 0 || r.stdout != "ok\n" {
			t.Errorf("run %d: %+v", i, r)
		}
	}
	assertNoLitter(t, b.folder, nil)
}

// TestKeepSessionCtrlC runs the wall as enter does (KeepSession) on a
// terminal (script's pty) and types Ctrl-C: the terminal's SIGINT must
// reach the command once and leave the sandbox standing.
func TestKeepSessionCtrlC(t *testing.T) {
	testenv.NeedCommand(t, "script", "bsdutils")
	b := newBox(t)
	b.keep = true
	cmd, err := Wrap(b.request("/bin/sh", "-c", "n=0; trap 'n=$((n+1))' INT; echo ready; i=0; while [ $n -eq 0 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; sleep 0.3; echo ints=$n; exit 4"))
	if err != nil {
		t.Fatal(err)
	}
	quoted := make([]string, len(cmd.Argv))
	for i, a := range cmd.Argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	c := exec.Command("script", "-qefc", "exec "+strings.Join(quoted, " "), "/dev/null")
	c.Env, c.Dir = cmd.Env, cmd.Dir
	stdin, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("no ready line: %v", err)
		}
		if strings.Contains(line, "ready") {
			break
		}
	}
	_, _ = stdin.Write([]byte{3}) // Ctrl-C on the terminal
	rest, _ := io.ReadAll(br)
	_ = c.Wait()
	if c.ProcessState.ExitCode() != 4 || !strings.Contains(string(rest), "ints=1") {
		t.Fatalf("exit %d, output %q", c.ProcessState.ExitCode(), rest)
	}
}
