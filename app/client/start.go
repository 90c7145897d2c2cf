package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/safesocket"
)

// StartTimeout bounds how long EnsureDaemon waits for a started daemon.
var StartTimeout = 10 * time.Second

// maxDaemonLog is the size past which a starting daemon's log is moved
// to daemon.log.1.
const maxDaemonLog = 4 << 20

// Started says what EnsureDaemon did.
type Started struct {
	// Started is true when EnsureDaemon started a daemon.
	Started bool
	// Died is true when a socket was there but nobody answered: the
	// previous daemon died, and its sandboxes lost their network.
	Died bool
}

// EnsureDaemon makes sure a daemon answers, starting exe ("" = this
// program) as `exe sandbox tray` when a desktop session is there (see
// DaemonVerb), else as `exe sandbox daemon`, if none does.
func (c *Client) EnsureDaemon(ctx context.Context, exe string) (Started, error) {
	if _, err := c.Status(ctx); err == nil || !errors.Is(err, ErrNoDaemon) {
		return Started{}, err
	}
	st := Started{Started: true}
	if _, err := os.Lstat(c.Socket); err == nil {
		st.Died = true
	}
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return st, fmt.Errorf("cannot find the lnk program to start the daemon: %w", err)
		}
	}
	paths, err := apitype.DefaultPaths()
	if err != nil {
		return st, err
	}
	// A runtime folder that is not ours (or open to others) is refused
	// here, before a daemon is started in it.
	if err := safesocket.PrivateDir(filepath.Dir(c.Socket)); err != nil {
		return st, err
	}
	exited, err := spawn(exe, paths.DaemonLog(), c.Socket)
	if err != nil {
		return st, err
	}
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	return st, c.waitStarted(ctx, exited, paths.DaemonLog())
}

// waitStarted polls until a daemon answers. If the one we started exits,
// it may have lost the race to another one starting at the same moment
// (two verbs at once): polling goes on for lostRace before that counts as
// a failure.
func (c *Client) waitStarted(ctx context.Context, exited <-chan struct{}, logFile string) error {
	var giveUp <-chan time.Time
	for delay := 5 * time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		_, err := c.Status(ctx)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrNoDaemon) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the daemon did not answer within %v: see %s", StartTimeout, logFile)
		case <-exited:
			exited, giveUp = nil, time.After(lostRace)
		case <-giveUp:
			return fmt.Errorf("the daemon stopped at once (%s): see %s", lastLine(logFile), logFile)
		case <-time.After(delay):
		}
	}
}

// lostRace is how long a verb whose daemon exited at once waits for
// another daemon to answer.
const lostRace = 2 * time.Second

// lastLine returns the last line of a file, for an error message.
func lastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	l := lines[len(lines)-1]
	if len(l) > 300 {
		l = l[:300]
	}
	return l
}

// spawn starts the daemon detached, its output appended to logFile. The
// channel is closed if the daemon exits while this process still runs.
func spawn(exe, logFile, socket string) (<-chan struct{}, error) {
	if err := safesocket.PrivateDir(filepath.Dir(logFile)); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(logFile); err == nil && fi.Size() > maxDaemonLog {
		os.Rename(logFile, logFile+".1") // keep one old log
	}
	out, err := os.OpenFile(logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon log: %w", err)
	}
	defer out.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	cmd := exec.Command(exe, "sandbox", DaemonVerb(os.Getenv, runtime.GOOS), "--socket", socket)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, out, out
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the daemon (%s): %w", exe, err)
	}
	// The daemon outlives us (in its own session, it is re-parented when
	// we exit); until then, notice if it stops at once.
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	return exited, nil
}
