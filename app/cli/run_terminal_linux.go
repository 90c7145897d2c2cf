package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/client"
)

// onTerminal reports whether run's standard input and output are this
// person's terminal: then the sandbox's questions can be asked here.
func onTerminal(c *cobra.Command) bool {
	if c.InOrStdin() != os.Stdin || c.OutOrStdout() != os.Stdout || os.Getenv("LNK_NO_TERMINAL_QUESTIONS") != "" {
		return false
	}
	_, err1 := unix.IoctlGetTermios(int(os.Stdin.Fd()), unix.TCGETS)
	_, err2 := unix.IoctlGetTermios(int(os.Stdout.Fd()), unix.TCGETS)
	return err1 == nil && err2 == nil
}

// runOnTerminal runs the confining command on a terminal of its own (a
// pty) and relays this one to it, so that run can show the sandbox's
// questions here and take answers out of what the person types: a line
// "CODE CHOICE" with the code of a waiting question never reaches the
// sandbox. ok is false when the daemon would not attach this terminal;
// the caller then runs the command as usual.
func runOnTerminal(w *apitype.WrapResponse) (ok bool, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cl := &client.Client{}
	events := make(chan *apitype.QuestionEvent, 16)
	ready := make(chan struct{})
	go func() {
		var once sync.Once
		cl.WatchQuestions(ctx, w.ID, func(e *apitype.QuestionEvent) error {
			if e.Ready {
				once.Do(func() { close(ready) })
				return nil
			}
			select {
			case events <- e:
			case <-ctx.Done():
				return ctx.Err()
			}
			return nil
		})
	}()
	select {
	case <-ready:
	case <-time.After(3 * time.Second):
		return false, nil
	}

	cmd := exec.Command(w.Argv[0], w.Argv[1:]...)
	cmd.Env, cmd.Dir = w.Env, w.Dir
	master, err := pty.Start(cmd)
	if err != nil {
		return true, failf(ExitFailure, "cannot start the sandbox (%s) on a terminal: %v: see 'lnk sandbox doctor'", w.Argv[0], err)
	}
	defer master.Close()
	pty.InheritSize(os.Stdin, master)
	restore, err := makeRaw(int(os.Stdin.Fd()))
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return true, failf(ExitFailure, "cannot set up this terminal: %v", err)
	}
	defer restore()

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)
	out := &lockedWriter{w: os.Stdout}
	outDone := make(chan struct{})
	go func() {
		io.Copy(out, master)
		close(outDone)
	}()
	input := make(chan []byte)
	go readInput(os.Stdin, input)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	r := &relay{cl: cl, out: out, master: master, m: newCodeMatcher(), ctx: ctx}
	for {
		select {
		case werr := <-exited:
			master.Close()
			select {
			case <-outDone:
			case <-time.After(time.Second):
			}
			return true, wallResult(werr)
		case s := <-sigs:
			if s == syscall.SIGWINCH {
				pty.InheritSize(os.Stdin, master)
			}
			cmd.Process.Signal(s)
		case b, open := <-input:
			if !open {
				input = nil // standard input ended; the command goes on
				continue
			}
			r.typed(b)
		case e := <-events:
			r.event(e)
		}
	}
}

func readInput(f *os.File, c chan<- []byte) {
	defer close(c)
	for {
		b := make([]byte, 4096)
		n, err := f.Read(b)
		if n > 0 {
			c <- b[:n]
		}
		if err != nil {
			return
		}
	}
}

// relay is the terminal's side of the questions: it shows them and takes
// their answers out of the typed bytes.
type relay struct {
	ctx     context.Context
	cl      *client.Client
	out     *lockedWriter
	master  *os.File
	m       *codeMatcher
	waiting []*apitype.Question // oldest first; only the first is shown
}

func (r *relay) typed(b []byte) {
	var pass []byte
	for _, c := range b {
		res := r.m.feed(c)
		r.apply(&res, &pass)
	}
	if len(pass) > 0 {
		r.master.Write(pass)
	}
}

func (r *relay) apply(res *matchResult, pass *[]byte) {
	if len(res.echo) > 0 {
		r.out.Write(res.echo)
	}
	*pass = append(*pass, res.pass...)
	switch {
	case res.choice != "":
		r.say("answering %s: %s", res.id, res.choice)
		go func(id, choice, code string) {
			if err := r.cl.Answer(r.ctx, &apitype.AnswerRequest{ID: id, Choice: choice, Terminal: true, Code: code}); err != nil {
				r.say("the answer to %s was not taken: %v", id, err)
			}
		}(res.id, res.choice, r.codeOf(res.id))
	case res.id != "":
		r.say("%q is not a choice: type the code, then allow, always or deny", res.bad)
	}
}

// codeOf returns the code of question id; the matcher keeps them.
func (r *relay) codeOf(id string) string {
	for c, q := range r.m.codes {
		if q == id {
			return c
		}
	}
	return ""
}

// event shows the questions one at a time: the oldest waiting one, with
// its code; the next when it is settled.
func (r *relay) event(e *apitype.QuestionEvent) {
	switch {
	case e.Question != nil && e.Question.Code != "":
		r.waiting = append(r.waiting, e.Question)
		if len(r.waiting) == 1 {
			r.show(e.Question)
		} else {
			r.say("another question (%s) waits its turn", e.Question.ID)
		}
	case e.Gone != "":
		for i, q := range r.waiting {
			if q.ID != e.Gone {
				continue
			}
			r.waiting = append(r.waiting[:i], r.waiting[i+1:]...)
			if i > 0 {
				return // never shown: nothing to take back
			}
			var pass []byte
			res := r.m.remove(e.Gone)
			r.apply(&res, &pass)
			if len(pass) > 0 {
				r.master.Write(pass)
			}
			r.say("question %s is settled", e.Gone)
			if len(r.waiting) > 0 {
				r.show(r.waiting[0])
			}
			return
		}
	}
}

// show prints q with its code, and lets the matcher take its answer.
func (r *relay) show(q *apitype.Question) {
	r.m.add(q.Code, q.ID)
	choices := q.Code + " allow   or   " + q.Code + " deny"
	if q.Always {
		choices = q.Code + " allow   " + q.Code + " always   or   " + q.Code + " deny"
	}
	text := strings.ReplaceAll(q.Text, "\n", "\r\n    ")
	r.out.Write([]byte(fmt.Sprintf("\r\n[lnk] question %s for you (denied in %v unless answered):\r\n    %s\r\n[lnk] to answer, type:  %s  and Enter\r\n",
		q.ID, max(time.Until(q.Expires).Round(time.Second), 0), text, choices)))
}

func (r *relay) say(format string, args ...any) {
	r.out.Write([]byte("\r\n[lnk] " + fmt.Sprintf(format, args...) + "\r\n"))
}

// lockedWriter keeps the command's output and lnk's lines whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// makeRaw puts the terminal fd in raw mode (as cfmakeraw does) and returns
// what restores it.
func makeRaw(fd int) (func(), error) {
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &t); err != nil {
		return nil, err
	}
	return func() { unix.IoctlSetTermios(fd, unix.TCSETS, old) }, nil
}
