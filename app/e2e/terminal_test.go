//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"lnk.dev/sandbox/build/testenv"
)

// ptyRun starts `lnk sandbox run ARGS` on a new terminal, as a person at a
// terminal would, and returns the terminal and what it shows.
func (w *world) ptyRun(args ...string) (*os.File, *syncBuffer, *proc) {
	w.t.Helper()
	cmd := exec.Command(lnkBin, append([]string{"sandbox", "run"}, args...)...)
	cmd.Env, cmd.Dir = append(w.env(), "TERM=dumb"), w.folder
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		w.t.Fatal(err)
	}
	screen := &syncBuffer{}
	p := &proc{cmd: cmd, out: screen, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			screen.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	go func() { p.err = cmd.Wait(); close(p.done) }()
	w.t.Cleanup(func() { cmd.Process.Kill(); <-p.done; tty.Close() })
	return tty, screen, p
}

// waitScreen waits until re matches what the terminal shows.
func waitScreen(t *testing.T, screen *syncBuffer, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(screen.String()); m != nil {
			return m
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the terminal never showed %v; it shows:\n%s", re, screen)
	return nil
}

// A sandbox started by `run` on a terminal asks there: the question comes
// with a code, input without the code is the sandbox's own, and the
// answer typed with the code reaches the bridge but never the sandbox.
func TestAskOnTerminal(t *testing.T) {
	w := newWorld(t, true)
	curl := testenv.NeedCommand(t, "curl", "curl")
	w.startDaemon()
	spec := w.writeSpec(askSpec)
	body, _ := json.Marshal(map[string]string{"question": "Push to main?"})
	script := curl + ` -sS --max-time 60 -H 'Content-Type: application/json' -d '` + string(body) + `' http://lnk.sandbox/ask; echo;` +
		` read a; echo "got1:$a"; read b; echo "got2:$b"`
	tty, screen, p := w.ptyRun("--spec", spec, "--", "/bin/sh", "-c", script)
	m := waitScreen(t, screen, regexp.MustCompile(`to answer, type:\s+([A-Z2-9]{5}) allow`))
	code := m[1]
	if q := w.waitQuestion("Push to main?"); q.Via != "terminal" || q.Code != "" {
		t.Fatalf("the queue shows %+v: want it on the terminal, without its code", q)
	}
	// Not the code: not an answer; the sandbox gets the line.
	tty.Write([]byte("ZZZZZ allow\r"))
	time.Sleep(300 * time.Millisecond)
	if strings.Contains(screen.String(), `"answer"`) {
		t.Fatal("a line without the code answered the question")
	}
	tty.Write([]byte(code + " allow\r"))
	waitScreen(t, screen, regexp.MustCompile(`"answer":"allow","via":"terminal"`))
	tty.Write([]byte("after\r"))
	waitScreen(t, screen, regexp.MustCompile(`got2:after`))
	out := screen.String()
	if !strings.Contains(out, "got1:ZZZZZ allow") {
		t.Fatalf("the line without the code did not reach the sandbox:\n%s", out)
	}
	if strings.Contains(out, "got1:"+code) || strings.Contains(out, "got2:"+code) {
		t.Fatalf("the sandbox read the code:\n%s", out)
	}
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("run exited %d:\n%s", code, out)
	}
}

// On a terminal, Ctrl-C still ends the command (through run's terminal
// relay), and run mirrors its signal.
func TestCtrlCOnTerminal(t *testing.T) {
	w := newWorld(t, true)
	w.startDaemon()
	tty, screen, p := w.ptyRun("--", "/bin/sh", "-c", "echo ready; exec sleep 60")
	waitScreen(t, screen, regexp.MustCompile(`ready`))
	tty.Write([]byte{3})
	if code := p.wait(t, 20*time.Second); code != 130 {
		t.Fatalf("run exited %d after Ctrl-C, want 130:\n%s", code, screen)
	}
}

// Two questions at once on one terminal are shown one at a time: the
// second with its own code once the first is settled.
func TestTerminalQuestionsOneAtATime(t *testing.T) {
	w := newWorld(t, true)
	curl := testenv.NeedCommand(t, "curl", "curl")
	w.startDaemon()
	spec := w.writeSpec(askSpec)
	ask := func(q string) string {
		return curl + ` -sS --max-time 60 -H 'Content-Type: application/json' -d '{"question":"` + q + `"}' http://lnk.sandbox/ask`
	}
	script := "(" + ask("first?") + "; echo) & sleep 1; (" + ask("second?") + "; echo) & wait"
	tty, screen, p := w.ptyRun("--spec", spec, "--", "/bin/sh", "-c", script)
	codeRe := regexp.MustCompile(`to answer, type:\s+([A-Z2-9]{5}) allow`)
	first := waitScreen(t, screen, codeRe)[1]
	waitScreen(t, screen, regexp.MustCompile(`another question \(q[0-9a-f]+\) waits its turn`))
	if n := len(codeRe.FindAllString(screen.String(), -1)); n != 1 {
		t.Fatalf("%d questions shown at once:\n%s", n, screen)
	}
	tty.Write([]byte(first + " deny\r"))
	waitScreen(t, screen, regexp.MustCompile(`"answer":"deny","via":"terminal"`))
	var second string
	deadline := time.Now().Add(30 * time.Second)
	for second == "" && time.Now().Before(deadline) {
		if all := codeRe.FindAllStringSubmatch(screen.String(), -1); len(all) == 2 {
			second = all[1][1]
		}
		time.Sleep(50 * time.Millisecond)
	}
	if second == "" || second == first {
		t.Fatalf("the second question was not shown with its own code:\n%s", screen)
	}
	tty.Write([]byte(second + " allow\r"))
	waitScreen(t, screen, regexp.MustCompile(`"answer":"allow","via":"terminal"`))
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("run exited %d:\n%s", code, screen)
	}
}
