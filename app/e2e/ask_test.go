//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/build/testenv"
)

// askSpec lets a sandbox ask the person through the asks bridge.
const askSpec = "[filesystem]\nallow_write = [\".\"]\n[network]\nendpoints = [\"ask\"]\n"

// startDaemon starts the world's daemon with args (e.g. a short
// --ask-timeout) and waits until it answers. newWorld's cleanup stops it.
func (w *world) startDaemon(args ...string) {
	w.t.Helper()
	cmd := exec.Command(lnkBin, append([]string{"sandbox", "daemon"}, args...)...)
	cmd.Env, cmd.Dir = w.env(), w.folder
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if w.daemonPID() == cmd.Process.Pid {
			if r := w.lnk("status"); r.code == 0 && strings.Contains(r.stdout, "running") {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	w.t.Fatal("the daemon did not start")
}

// askInside starts a sandbox whose command asks question through the
// asks bridge and prints the answer.
func (w *world) askInside(spec, question string) *proc {
	w.t.Helper()
	curl := testenv.NeedCommand(w.t, "curl", "curl")
	body, _ := json.Marshal(map[string]string{"question": question})
	cmd := exec.Command(lnkBin, "sandbox", "run", "--spec", spec, "--name", "asker", "--",
		curl, "-sS", "--max-time", "60", "-H", "Content-Type: application/json", "-d", string(body), "http://lnk.sandbox/ask")
	cmd.Env, cmd.Dir = w.env(), w.folder
	p := &proc{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	w.t.Cleanup(func() { cmd.Process.Kill(); <-p.done })
	return p
}

// waitQuestion waits for a question about subject on the queue.
func (w *world) waitQuestion(subject string) apitype.Question {
	w.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var qs []apitype.Question
		if err := json.Unmarshal([]byte(w.must("answer", "--json")), &qs); err != nil {
			w.t.Fatal(err)
		}
		for _, q := range qs {
			if q.Subject == subject {
				return q
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.t.Fatalf("no question %q reached the queue", subject)
	return apitype.Question{}
}

// A sandbox's question waits on the queue (no display, no terminal) and
// the answer given from another process reaches it.
func TestAskQueue(t *testing.T) {
	w := newWorld(t, true)
	w.startDaemon()
	spec := w.writeSpec(askSpec)
	for _, choice := range []string{"allow", "deny"} {
		p := w.askInside(spec, "May I deploy? ("+choice+")")
		q := w.waitQuestion("May I deploy? (" + choice + ")")
		if q.Bridge != "ask" || q.Via != "queue" || q.Code != "" || !strings.Contains(q.Text, "May I deploy?") {
			t.Fatalf("question on the queue: %+v", q)
		}
		listed := w.must("answer")
		if !strings.Contains(listed, q.ID) || !strings.Contains(listed, "lnk sandbox answer "+q.ID) {
			t.Fatalf("answer lists:\n%s", listed)
		}
		w.must("answer", q.ID, choice)
		if code := p.wait(t, 30*time.Second); code != 0 {
			t.Fatalf("exit %d: %s", code, p.out)
		}
		if !strings.Contains(p.out.String(), `"answer":"`+choice+`"`) || !strings.Contains(p.out.String(), `"via":"queue"`) {
			t.Fatalf("the sandbox got %s, want %s", p.out, choice)
		}
		if r := w.lnk("answer", q.ID, "allow"); r.code == 0 || !strings.Contains(r.stderr, "no such question") {
			t.Fatalf("answering twice: exit %d, %s", r.code, r.stderr)
		}
	}
	if out := w.must("answer", "--remembered"); !strings.Contains(out, `no "always" answers`) {
		t.Fatalf("answer --remembered: %s", out)
	}
	if out := w.must("answer", "--forget", "--all"); !strings.Contains(out, "forgot 0") {
		t.Fatalf("answer --forget --all: %s", out)
	}
	if r := w.lnk("answer", "--forget"); r.code == 0 || !strings.Contains(r.stderr, "say which") {
		t.Fatalf("answer --forget with nothing named: exit %d, %s", r.code, r.stderr)
	}
	logged := w.must("log", "--json")
	if !strings.Contains(logged, `"proto":"ask"`) || !strings.Contains(logged, "deny via queue") || !strings.Contains(logged, "allow via queue") {
		t.Fatalf("questions and answers are not in the log:\n%s", logged)
	}
}

// Silence is no: a question nobody answers is denied after the timeout.
func TestAskTimeoutIsNo(t *testing.T) {
	w := newWorld(t, true)
	w.startDaemon("--ask-timeout", "2s")
	p := w.askInside(w.writeSpec(askSpec), "Anyone there?")
	w.waitQuestion("Anyone there?")
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d: %s", code, p.out)
	}
	if out := p.out.String(); !strings.Contains(out, `"answer":"deny"`) || !strings.Contains(out, `"via":"timeout"`) {
		t.Fatalf("got %s, want a timeout deny", out)
	}
}

// Nothing inside a sandbox can list or answer questions: the daemon's
// socket is out of its reach, whatever it tries.
func TestInsideCannotAnswer(t *testing.T) {
	w := newWorld(t, true)
	w.startDaemon()
	spec := w.writeSpec(askSpec)
	p := w.askInside(spec, "Pending while others try")
	q := w.waitQuestion("Pending while others try")
	for _, script := range []string{
		"/run/lnk/lnk sandbox answer",
		"/run/lnk/lnk sandbox answer " + q.ID + " allow",
		"env -u LNK_SANDBOX /run/lnk/lnk sandbox answer " + q.ID + " allow",
		"env -u LNK_SANDBOX XDG_RUNTIME_DIR=" + w.runtime + " /run/lnk/lnk sandbox answer " + q.ID + " allow",
	} {
		r := w.lnk("run", "--spec", spec, "--", "/bin/sh", "-c", script)
		if r.code == 0 || strings.Contains(r.stdout, q.ID) {
			t.Fatalf("%s inside: exit %d\n%s\n%s", script, r.code, r.stdout, r.stderr)
		}
	}
	// The question is still waiting, unanswered.
	w.waitQuestion("Pending while others try")
	w.must("answer", q.ID, "deny")
	p.wait(t, 30*time.Second)
	if !strings.Contains(p.out.String(), `"answer":"deny"`) {
		t.Fatalf("got %s", p.out)
	}
}

// With a screen, the daemon asks with a real dialog: answered with a key
// as a person would, the answer reaches the sandbox.
func TestAskByDialog(t *testing.T) {
	display := testenv.NeedEnv(t, "DISPLAY", "run the tests under xvfb-run (apt install xvfb xauth)")
	xdotool := testenv.NeedCommand(t, "xdotool", "xdotool")
	testenv.NeedCommand(t, "zenity", "zenity")
	w := newWorld(t, true)
	// xvfb-run lets in only the clients that carry its XAUTHORITY.
	w.extraEnv = []string{"DISPLAY=" + display, "XAUTHORITY=" + os.Getenv("XAUTHORITY"), "NO_AT_BRIDGE=1"}
	w.startDaemon()
	p := w.askInside(w.writeSpec(askSpec), "Show me a dialog")
	var wid string
	deadline := time.Now().Add(30 * time.Second)
	for wid == "" && time.Now().Before(deadline) {
		out, _ := exec.Command(xdotool, "search", "--onlyvisible", "--name", "lnk sandbox: asker asks").Output()
		if f := strings.Fields(string(out)); len(f) > 0 {
			wid = f[0]
		}
		time.Sleep(50 * time.Millisecond)
	}
	if wid == "" {
		t.Fatal("no dialog appeared")
	}
	if q := w.waitQuestion("Show me a dialog"); q.Via != "dialog" {
		t.Fatalf("question %+v, want it shown by dialog", q)
	}
	if out, err := exec.Command(xdotool, "windowfocus", "--sync", wid, "key", "alt+a").CombinedOutput(); err != nil {
		t.Fatalf("xdotool: %v %s", err, out)
	}
	p.wait(t, 30*time.Second)
	if out := p.out.String(); !strings.Contains(out, `"answer":"allow","via":"dialog"`) {
		t.Fatalf("got %s, want allowed by dialog", out)
	}
}
