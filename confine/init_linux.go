package confine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// RunInit is the body of the hidden verb `lnk sandbox init`: the guard
// outside the wall (--guard), or init, the first process inside it.
func RunInit(args []string) int {
	if len(args) > 0 && args[0] == "--guard" {
		return runGuard(args[1:])
	}
	if len(args) > 0 && args[0] == "--weak" {
		return runWeak(args[1:])
	}
	return runInner(args)
}

type initOpts struct {
	weak        bool   // no namespaces: see weak_linux.go
	socket      string // the proxy's socket (the weak mode's; inside the wall it is InnerSocket)
	keepSession bool
	rules       landlockRules
	gitIgnore   []string
	argv        []string
}

func parseInitArgs(args []string) (*initOpts, error) {
	o := &initOpts{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			o.argv = args[i+1:]
			break
		}
		if a == "--keep-session" {
			o.keepSession = true
			continue
		}
		if i+1 >= len(args) {
			return nil, fmt.Errorf("init: %s needs a value", a)
		}
		v := args[i+1]
		i++
		switch a {
		case "--x":
			o.rules.exec = append(o.rules.exec, v)
		case "--w":
			o.rules.write = append(o.rules.write, v)
		case "--git-ignore":
			o.gitIgnore = append(o.gitIgnore, v)
		case "--socket":
			o.socket = v
		default:
			return nil, fmt.Errorf("init: unknown flag %s", a)
		}
	}
	if len(o.argv) == 0 {
		return nil, errors.New("init: no command after --")
	}
	return o, nil
}

func initFail(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "lnk: "+format+"\n", args...)
	return exitFailure
}

func runInner(args []string) int {
	// Not dumpable: the child cannot ptrace init or read its memory.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return initFail("init: cannot make itself undumpable: %v", err)
	}
	o, err := parseInitArgs(args)
	if err != nil {
		return initFail("%v: this is lnk's own command line, run through lnk sandbox run", err)
	}
	user, pass, port, err := proxyCreds()
	if err != nil {
		return initFail("%v", err)
	}
	prepareRunDir(o.gitIgnore)
	r, err := startRelay(port, InnerSocket)
	if err != nil {
		return initFail("%v: the command did not run", err)
	}
	defer r.close()
	if err := checkHealth(port, user, pass); err != nil {
		return initFail("the sandbox's way out is not there (%v): the command did not run; check that lnk's daemon runs (lnk sandbox daemon)", err)
	}
	sess, err := openSession("unix", InnerSocket, user, pass)
	if err != nil {
		return initFail("%v: the command did not run", err)
	}
	o.rules.write = append(o.rules.write, "/tmp", "/dev/shm")
	o.rules.files = append(o.rules.files, "/dev")
	return supervise(o, sess)
}

// prepareRunDir writes the helpers init offers inside: an empty git
// template folder (git init copies no hooks) and git's ignore file naming
// the placeholders. It puts the browser openers (bwrap's links in
// OpenerDir) first on PATH.
func prepareRunDir(ignore []string) {
	_ = os.MkdirAll(RunDir+"/git-template", 0o755)
	path := OpenerDir
	if p := os.Getenv("PATH"); p != "" {
		path += ":" + p
	}
	_ = os.Setenv("PATH", path)
	var b strings.Builder
	if home, err := os.UserHomeDir(); err == nil {
		cfg := os.Getenv("XDG_CONFIG_HOME")
		if cfg == "" {
			cfg = filepath.Join(home, ".config")
		}
		if data, err := os.ReadFile(filepath.Join(cfg, "git", "ignore")); err == nil && len(data) < 1<<20 {
			b.Write(data)
			b.WriteString("\n")
		}
	}
	b.WriteString("# lnk's placeholders for protected names\n")
	for _, n := range ignore {
		b.WriteString("/" + n + "\n")
	}
	_ = os.WriteFile(RunDir+"/gitignore", []byte(b.String()), 0o444)
}

// startChild starts the command on a thread of its own that takes on
// Landlock and seccomp first; the child inherits both from that thread.
// The thread is never given back to the runtime, so it dies with its
// goroutine and the rest of init stays unconfined.
func startChild(o *initOpts, path string) (int, error) {
	type result struct {
		pid int
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := restrictThread(o.rules); err != nil {
			done <- result{err: err}
			return
		}
		if err := loadSeccomp(o.weak); err != nil {
			done <- result{err: err}
			return
		}
		attr := &os.ProcAttr{
			Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
			Env:   os.Environ(),
			Sys:   &syscall.SysProcAttr{Setpgid: !o.keepSession},
		}
		p, err := os.StartProcess(path, o.argv, attr)
		if err != nil {
			done <- result{err: err}
			return
		}
		done <- result{pid: p.Pid}
	}()
	r := <-done
	return r.pid, r.err
}

// supervise starts the child, forwards signals, follows the session,
// reaps every process and returns the child's exit code.
func supervise(o *initOpts, sess *session) int {
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, unix.SIGCHLD, unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2)
	// A command that never starts still ends the session with its code,
	// so the daemon lists 127 or 126 rather than "no code".
	ended := func(code int) int {
		sess.send(map[string]any{"event": "exit", "code": code})
		return code
	}
	path, err := exec.LookPath(o.argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "lnk: %s: command not found in the sandbox\n", o.argv[0])
		return ended(exitNotFound)
	}
	pid, err := startChild(o, path)
	switch {
	case errors.Is(err, os.ErrPermission) || errors.Is(err, unix.EACCES):
		fmt.Fprintf(os.Stderr, "lnk: %s may not run in this sandbox: add it (or its folder) to [commands] allow in the spec\n", path)
		return ended(exitNoExec)
	case err != nil:
		return ended(initFail("%v: the command did not run", err))
	}
	sess.send(map[string]any{"event": "start", "pid": pid})
	code := -1
	for code < 0 {
		select {
		case s := <-sigs:
			if s == unix.SIGCHLD {
				code = reap(pid)
				continue
			}
			forward(pid, o.keepSession, s.(syscall.Signal))
		case cmd, ok := <-sess.commands():
			if c := command(o, sess, cmd, ok); c >= 0 {
				killAll(o)
				return c
			}
		}
	}
	killAll(o)
	// A login that answered its callback and exited at once still has
	// its answer on the way to the browser: let it go out.
	sess.drainDials(dialDrain)
	sess.send(map[string]any{"event": "exit", "code": code})
	return code
}

// command carries out a daemon command; it returns an exit code when init
// must end.
func command(o *initOpts, sess *session, cmd sessionCmd, ok bool) int {
	switch {
	case !ok:
		fmt.Fprintf(os.Stderr, "lnk: %v\n", errDaemonGone)
		return exitFailure
	case cmd.Cmd == "stop":
		return 128 + int(unix.SIGTERM)
	case cmd.Cmd == "pause":
		signalAll(o, unix.SIGSTOP)
	case cmd.Cmd == "resume":
		signalAll(o, unix.SIGCONT)
	case cmd.Cmd == "dial":
		sess.startDial(cmd)
	}
	return -1
}

// forward passes a signal to the child's process group (to the child
// alone when it shares the caller's terminal, where the terminal's own
// signals reach it directly).
func forward(pid int, keepSession bool, s syscall.Signal) {
	if keepSession {
		if s == unix.SIGINT || s == unix.SIGQUIT {
			return
		}
		_ = unix.Kill(pid, s)
		return
	}
	_ = unix.Kill(-pid, s)
}

// reap collects every exited process; it returns the child's exit code
// once the child has exited, else -1.
func reap(child int) int {
	code := -1
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return code
		}
		if pid != child {
			continue
		}
		switch {
		case ws.Exited():
			code = ws.ExitStatus()
		case ws.Signaled():
			code = 128 + int(ws.Signal())
		}
	}
}

// signalAll signals every other process of the sandbox: all of its pid
// namespace (init is pid 1), or in the weak mode init's descendants.
func signalAll(o *initOpts, sig unix.Signal) {
	if !o.weak {
		_ = unix.Kill(-1, sig)
		return
	}
	for _, pid := range descendants(os.Getpid()) {
		_ = unix.Kill(pid, sig)
	}
}

// killAll ends every other process of the sandbox and reaps them, for at
// most a second.
func killAll(o *initOpts) {
	signalAll(o, unix.SIGKILL)
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if o.weak {
			signalAll(o, unix.SIGKILL) // descendants that forked meanwhile
		}
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if errors.Is(err, unix.ECHILD) {
			return
		}
		if pid <= 0 {
			time.Sleep(2 * time.Millisecond)
		}
	}
}
