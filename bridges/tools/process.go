package tools

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// baseEnv are the daemon's variables a tool's server inherits, as MCP's
// own clients do; everything else it gets comes from its definition.
var baseEnv = []string{"HOME", "PATH", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR"}

// process is one running server.
type process struct {
	name string
	cmd  *exec.Cmd
	wmu  sync.Mutex // guards stdin
	in   io.WriteCloser
	out  *bufio.Reader
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, set before done closes
}

// startProcess starts t's server with t's environment on top of baseEnv,
// in its own process group (so stop ends what it started too), in the
// daemon's home folder.
func startProcess(t *Tool, logf func(string, ...any)) (*process, error) {
	cmd := exec.Command(t.Command[0], t.Command[1:]...)
	cmd.Env = serverEnv(t.Env)
	if home, err := os.UserHomeDir(); err == nil {
		cmd.Dir = home
	}
	setGroup(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errp, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the server of tool %s (%s): %v: fix its command with lnk sandbox tool add %s --replace", t.Name, t.Command[0], err, t.Name)
	}
	p := &process{name: t.Name, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10), done: make(chan struct{})}
	go logStderr(errp, t.Name, cmd.Process.Pid, logf)
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// serverEnv is the environment of a tool's server.
func serverEnv(env []string) []string {
	var out []string
	for _, k := range baseEnv {
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	return append(out, env...)
}

// logStderr passes the server's stderr to the daemon's log, a line at a
// time, each clipped.
func logStderr(r io.Reader, name string, pid int, logf func(string, ...any)) {
	br := bufio.NewReader(r)
	for {
		line, err := readLine(br, 64<<10)
		if errors.Is(err, errLineTooLong) {
			logf("tool %s [%d]: (a stderr line over 64 KiB, dropped)", name, pid)
			io.Copy(io.Discard, br) // cannot resynchronise; keep the pipe drained
			return
		}
		if err != nil {
			return
		}
		logf("tool %s [%d]: %s", name, pid, clip(strings.ToValidUTF8(string(line), "?"), 500))
	}
}

// write sends one encoded message to the server.
func (p *process) write(b []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, err := p.in.Write(b)
	return err
}

// stop closes the server's stdin (MCP's way to end a stdio server), waits
// up to grace for it to exit, then signals its process group to end and
// finally kills it.
func (p *process) stop(grace time.Duration) {
	p.wmu.Lock()
	p.in.Close()
	p.wmu.Unlock()
	select {
	case <-p.done:
		return
	case <-time.After(grace):
	}
	terminate(p.cmd)
	select {
	case <-p.done:
		return
	case <-time.After(time.Second):
	}
	kill(p.cmd)
	<-p.done
}
