//go:build darwin

package confine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// RunInit is the body of the hidden verb `lnk sandbox init`. On macOS it
// runs inside the Seatbelt profile (--seatbelt): it checks the proxy on
// its loopback port, keeps the session with the daemon, starts the
// command in a session of its own, passes signals on, carries out
// stop, pause and resume on the group, mirrors the exit code and removes
// the sandbox's temp folder.
func RunInit(args []string) int {
	if len(args) == 0 || args[0] != "--seatbelt" {
		return initFail("init: on macOS only --seatbelt runs: this is lnk's own command line, run through lnk sandbox run")
	}
	port, socket, tmp, argv, err := parseSeatbeltInit(args[1:])
	if err != nil {
		return initFail("init: %v: this is lnk's own command line, run through lnk sandbox run", err)
	}
	defer os.RemoveAll(tmp)
	user, pass, _, err := proxyCreds()
	if err != nil {
		return initFail("%v", err)
	}
	if err := checkHealth(port, user, pass); err != nil {
		return initFail("the sandbox's way out is not there (%v): the command did not run; check that lnk's daemon runs (lnk sandbox daemon)", err)
	}
	// The session on the proxy's socket, where the daemon learns init's
	// pid from the connection.
	sess, err := openSession("unix", socket, user, pass)
	if err != nil {
		return initFail("%v: the command did not run", err)
	}
	linkOpeners(tmp)
	return superviseGroup(argv, sess)
}

// linkOpeners makes lnk the sandbox's browser opener, as on Linux: links
// named xdg-open and the like to the lnk binary in DIR/bin, first on
// PATH, and BROWSER. A page then opens through the proxy's open bridge,
// asking the person; macOS's own open(1) needs LaunchServices, which the
// profile denies. Without the links the command still runs, only its
// pages do not open.
func linkOpeners(tmp string) {
	self, err := os.Executable()
	if err != nil {
		return
	}
	bin := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		return
	}
	for _, n := range OpenerNames {
		if os.Symlink(self, filepath.Join(bin, n)) != nil {
			return
		}
	}
	os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Setenv("BROWSER", filepath.Join(bin, OpenerNames[0]))
}

func initFail(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "lnk: "+format+"\n", args...)
	return exitFailure
}

// superviseGroup runs argv in a session (and so a process group) of its
// own, as Linux's wall does with bwrap's --new-session: the terminal is
// not its controlling terminal, so it cannot push input into it
// (TIOCSTI), and a read from it is not stopped by job control. It
// returns the command's exit code (128+N for signal N).
func superviseGroup(argv []string, sess *session) int {
	ended := func(code int) int {
		sess.send(map[string]any{"event": "exit", "code": code})
		return code
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "lnk: %s: command not found in the sandbox\n", argv[0])
		return ended(exitNotFound)
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sigs)
	cmd := &exec.Cmd{Path: path, Args: argv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := cmd.Start(); err != nil {
		if errors.Is(err, os.ErrPermission) {
			fmt.Fprintf(os.Stderr, "lnk: %s may not run in this sandbox: add it (or its folder) to [commands] allow in the spec\n", path)
			return ended(exitNoExec)
		}
		return ended(initFail("%v: the command did not run", err))
	}
	pid := cmd.Process.Pid
	sess.send(map[string]any{"event": "start", "pid": pid})
	done := make(chan int, 1)
	go func() {
		_ = cmd.Wait()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			done <- 128 + int(ws.Signal())
			return
		}
		done <- cmd.ProcessState.ExitCode()
	}()
	for {
		select {
		case code := <-done:
			_ = syscall.Kill(-pid, syscall.SIGKILL) // what the command left behind
			return ended(code)
		case s := <-sigs:
			_ = syscall.Kill(-pid, s.(syscall.Signal))
		case c, ok := <-sess.commands():
			switch {
			case !ok:
				fmt.Fprintf(os.Stderr, "lnk: %v\n", errDaemonGone)
				killGroup(pid, done)
				return exitFailure
			case c.Cmd == "stop":
				killGroup(pid, done)
				return 128 + int(syscall.SIGTERM)
			case c.Cmd == "pause":
				_ = syscall.Kill(-pid, syscall.SIGSTOP)
			case c.Cmd == "resume":
				_ = syscall.Kill(-pid, syscall.SIGCONT)
			}
		}
	}
}

// killGroup kills the command's group and waits up to a second for it.
func killGroup(pid int, done <-chan int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	select {
	case <-done:
	case <-time.After(time.Second):
	}
}
