//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/build/testenv"
)

// serveLoopback serves h on 127.0.0.1 and returns the port.
func serveLoopback(t *testing.T, h http.Handler) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

// An allowed host answers through the proxy; a denied one is refused,
// logged, and shown as the sandbox's last blocked host.
func TestAllowedAndDenied(t *testing.T) {
	w := newWorld(t, true)
	curl := testenv.NeedCommand(t, "curl", "curl")
	allowed := serveLoopback(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprint(rw, "hello from the allowed host")
	}))
	denied := serveLoopback(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprint(rw, "LEAKED")
	}))
	spec := w.writeSpec(fmt.Sprintf("[filesystem]\nallow_write = [\".\"]\n[network]\nhosts = []\n[network.lan]\nallow = [\"127.0.0.1:%d\"]\n", allowed))
	// NO_PROXY names 127.0.0.1: --noproxy '' makes curl use the proxy
	// anyway (inside, 127.0.0.1 is the sandbox's own loopback).
	get := func(port int) result {
		return w.lnk("run", "--spec", spec, "--name", "net", "--", curl, "-fsS", "--noproxy", "", "--max-time", "20",
			"http://127.0.0.1:"+strconv.Itoa(port)+"/")
	}
	// A follower started before the traffic sees it arrive.
	follow := exec.Command(lnkBin, "sandbox", "log", "--follow", "--json")
	follow.Env, follow.Dir = w.env(), w.folder
	followed := &syncBuffer{}
	follow.Stdout = followed
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { follow.Process.Kill(); follow.Wait() })
	if r := get(allowed); r.code != 0 || r.stdout != "hello from the allowed host" {
		t.Fatalf("allowed host: exit %d, %q, %s", r.code, r.stdout, r.stderr)
	}
	r := get(denied)
	if r.code == 0 || strings.Contains(r.stdout, "LEAKED") {
		t.Fatalf("denied host answered: exit %d, %q", r.code, r.stdout)
	}
	// Without the proxy there is no way at all: the sandbox has its own
	// loopback.
	if r := w.lnk("run", "--", curl, "-sS", "--noproxy", "*", "--max-time", "5", "http://127.0.0.1:"+strconv.Itoa(allowed)+"/"); r.code == 0 || strings.Contains(r.stdout, "hello") {
		t.Fatalf("a direct connection reached the host's loopback: %q", r.stdout)
	}
	list := w.list()
	var last apitype.Sandbox
	for _, s := range list {
		if s.Name == "net" {
			last = s
		}
	}
	if want := "127.0.0.1:" + strconv.Itoa(denied); last.LastBlocked != want {
		t.Errorf("last blocked %q, want %q", last.LastBlocked, want)
	}
	checkLog(t, w, last.ID, denied)
	for i := 0; i < 100 && !strings.Contains(followed.String(), `"port":`+strconv.Itoa(denied)); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(followed.String(), `"port":`+strconv.Itoa(denied)) {
		t.Errorf("log --follow did not show the refusal: %s", followed)
	}
	human := w.must("log", "--sandbox", last.ID)
	if !strings.Contains(human, "deny") || !strings.Contains(human, "127.0.0.1:"+strconv.Itoa(denied)) {
		t.Errorf("human log lacks the refusal:\n%s", human)
	}
}

// checkLog asserts that `log --json --sandbox id` holds only that
// sandbox's records, the refusal of port denied among them.
func checkLog(t *testing.T, w *world, id string, denied int) {
	t.Helper()
	var recs []apitype.LogRecord
	for _, line := range strings.Split(strings.TrimSpace(w.must("log", "--json", "--sandbox", id)), "\n") {
		var rec apitype.LogRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		recs = append(recs, rec)
	}
	found := false
	for _, rec := range recs {
		if rec.Sandbox != id {
			t.Errorf("log --sandbox gave another sandbox's record: %+v", rec)
		}
		if rec.Port == uint16(denied) && rec.Decision == "deny" && rec.Rule != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("the refusal is not in the log: %+v", recs)
	}
}

// Killing the daemon mid-download cuts the sandbox's network at once, ends
// its command, and the next call says so and starts a clean daemon.
func TestDaemonDeathCutsNetwork(t *testing.T) {
	w := newWorld(t, true)
	curl := testenv.NeedCommand(t, "curl", "curl")
	started := make(chan struct{}, 1)
	cut := make(chan int, 1) // chunks sent when the server saw the connection go
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	port := serveLoopback(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/octet-stream")
		chunk := make([]byte, 1024)
		for i := 0; i < 600; i++ { // a minute at most
			_, err := rw.Write(chunk)
			if err == nil {
				err = http.NewResponseController(rw).Flush()
			}
			if err != nil {
				cut <- i
				return
			}
			if i == 2 {
				select {
				case started <- struct{}{}:
				default:
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}))
	spec := w.writeSpec(fmt.Sprintf("[filesystem]\nallow_write = [\".\"]\n[network]\nhosts = []\n[network.lan]\nallow = [\"127.0.0.1:%d\"]\n", port))
	resp, p := w.startWrapped("--spec", spec, "--", curl, "-sS", "--noproxy", "", "-o", "/dev/null",
		"http://127.0.0.1:"+strconv.Itoa(port)+"/")
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatalf("the download did not start: %s", p.out)
	}
	w.waitState(resp.ID, apitype.StateRunning)
	w.killDaemon(9)
	oldDir := w.paths().SandboxDir(resp.ID)
	t0 := time.Now()
	code := p.wait(t, 10*time.Second)
	if code == 0 {
		t.Fatalf("the download finished after the daemon died: %s", p.out)
	}
	t.Logf("command ended %v after the daemon died, exit %d: %s", time.Since(t0), code, strings.TrimSpace(p.out.String()))
	// Nothing carries on around it: the server sees the download cut.
	select {
	case n := <-cut:
		t.Logf("the server saw the connection cut after %d chunks", n)
	case <-time.After(15 * time.Second):
		t.Error("the download's connection stayed open after the daemon died")
	}
	if out := w.must("status"); !strings.Contains(out, "stopped unexpectedly") {
		t.Errorf("status after the daemon died: %q", out)
	}
	// The next call notices and restarts a daemon with nothing from before.
	r := w.lnk("list", "--json")
	if r.code != 0 || !strings.Contains(r.stderr, "lost its network") {
		t.Errorf("the next call did not say the daemon had died: exit %d, %q", r.code, r.stderr)
	}
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("the new daemon kept old sandboxes: %s", r.stdout)
	}
	if _, err := os.Stat(oldDir); !os.IsNotExist(err) {
		t.Errorf("the dead daemon's sandbox folder %s is still there: %v", oldDir, err)
	}
}
