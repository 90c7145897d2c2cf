//go:build linux

package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	mcpOnce           sync.Once
	mcpServer, mcpCli string
	mcpBuildErr       error
)

// mcpBins builds the mcptest server (run outside, as a tool) and the
// sandboxed MCP client, next to the lnk binary.
func mcpBins(t *testing.T) (server, client string) {
	t.Helper()
	mcpOnce.Do(func() {
		dir := filepath.Dir(lnkBin)
		mcpServer, mcpCli = filepath.Join(dir, "mcptest-server"), filepath.Join(dir, "mcptest-client")
		for bin, pkg := range map[string]string{mcpServer: "lnk.dev/sandbox/build/mcptest/server", mcpCli: "lnk.dev/sandbox/build/mcptest/client"} {
			if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
				mcpBuildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if mcpBuildErr != nil {
		t.Fatal(mcpBuildErr)
	}
	return mcpServer, mcpCli
}

// installClient copies the MCP client into the sandbox's folder (the
// sandbox's /tmp is its own) and returns its path there.
func (w *world) installClient(t *testing.T) string {
	t.Helper()
	_, cli := mcpBins(t)
	b, err := os.ReadFile(cli)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(w.folder, "mcpclient")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return "./mcpclient"
}

// toolSpec is a spec that runs programs from the folder and reaches tools.
func (w *world) toolSpec(tools ...string) string {
	q := make([]string, len(tools))
	for i, n := range tools {
		q[i] = fmt.Sprintf("%q", n)
	}
	return w.writeSpec("[filesystem]\nallow_write = [\".\"]\n[commands]\nallow = [\".\"]\n[network]\ntools = [" + strings.Join(q, ", ") + "]\n")
}

// watcher is `lnk sandbox answer --watch`, answering questions in turn.
type watcher struct {
	mu        sync.Mutex // guards questions and answers
	questions []string
	answers   []string
}

var questionRE = regexp.MustCompile(`^--- question (\S+) `)

// watch starts a queue watcher that answers the questions it sees with
// answers, in order (deny once they run out), and records their text.
func (w *world) watch(t *testing.T, answers ...string) *watcher {
	t.Helper()
	cmd := exec.Command(lnkBin, "sandbox", "answer", "--watch")
	cmd.Env, cmd.Dir = w.env(), w.folder
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wa := &watcher{answers: answers}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		var cur *strings.Builder
		once := sync.Once{}
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "watching for questions") {
				once.Do(func() { close(ready) })
			}
			if m := questionRE.FindStringSubmatch(line); m != nil {
				cur = &strings.Builder{}
				wa.mu.Lock()
				choice := "deny"
				if len(wa.answers) > 0 {
					choice, wa.answers = wa.answers[0], wa.answers[1:]
				}
				wa.questions = append(wa.questions, "")
				wa.mu.Unlock()
				go func(id string) {
					time.Sleep(100 * time.Millisecond) // let the question's text arrive first
					io.WriteString(in, id+" "+choice+"\n")
				}(m[1])
			}
			if cur != nil {
				cur.WriteString(line + "\n")
				wa.mu.Lock()
				wa.questions[len(wa.questions)-1] = cur.String()
				wa.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("answer --watch did not start")
	}
	return wa
}

func (wa *watcher) seen() []string {
	wa.mu.Lock()
	defer wa.mu.Unlock()
	return append([]string(nil), wa.questions...)
}
