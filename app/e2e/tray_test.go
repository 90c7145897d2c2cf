//go:build linux

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/build/testenv"
)

// startTray runs `lnk sandbox tray` in w with the session bus at bus and
// extra environment; it is killed by pid when the test ends.
func (w *world) startTray(bus string, extra ...string) (*exec.Cmd, *syncBuffer) {
	w.t.Helper()
	sock := filepath.Join(w.paths().Runtime, "control.sock")
	cmd := exec.Command(lnkBin, "sandbox", "tray", "--socket", sock)
	cmd.Env = append(append(w.env(), "DBUS_SESSION_BUS_ADDRESS="+bus), extra...)
	cmd.Dir = w.folder
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	w.t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if w.t.Failed() {
			w.t.Logf("tray's output:\n%s", out)
		}
	})
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(sock); err == nil {
			return cmd, out
		}
		time.Sleep(50 * time.Millisecond)
	}
	w.t.Fatalf("the tray's daemon did not serve %s within 10s:\n%s", sock, out)
	return nil, nil
}

// rss returns a process's resident memory in KiB.
func rss(t *testing.T, pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// The tray, read and clicked over D-Bus as a desktop's tray host would:
// its title, tooltip, icon and menu follow the sandboxes; Stop in the
// menu ends a sandbox's processes; a question shows in the menu; blocked
// connections, a waiting question and a stop are notified, the blocked
// ones once per host however often the sandbox retries.
func TestTrayOverDBus(t *testing.T) {
	testenv.NeedCommand(t, "curl", "curl")
	w := newWorld(t, true)
	bus := privateBus(t)
	watcher := serveWatcher(t, bus)
	notes := serveNotifications(t, bus)
	// No display: questions cannot be dialogs and wait on the queue,
	// which the tray watches.
	cmd, _ := w.startTray(bus)
	tv := &trayView{t: t, conn: busConn(t, bus), name: watcher.item(t)}

	if got := tv.prop("Title").Value(); got != "lnk sandbox" {
		t.Errorf("Title = %v", got)
	}
	tv.waitMenu("the idle tooltip", func(menuItem) bool { return tv.tooltip() == "lnk sandbox: no sandbox running" })
	iw, ih, idle := tv.icon()
	if iw != 32 || ih != 32 || len(idle) != 32*32*4 {
		t.Errorf("icon is %dx%d with %d bytes", iw, ih, len(idle))
	}
	m := tv.waitMenu("No sandbox running", func(m menuItem) bool { _, ok := m.find("No sandbox running"); return ok })
	if pa, ok := m.find("Pause all"); ok && pa.enabled() {
		t.Error("Pause all is enabled with nothing running")
	}
	for _, want := range []string{"Pause all", "Open log", "Settings folder", "Quit"} {
		if _, ok := m.find(want); !ok {
			t.Errorf("no %q in the menu:\n%s", want, strings.Join(m.labels(""), "\n"))
		}
	}
	time.Sleep(time.Second) // settle before measuring idle memory
	t.Logf("FIGURE tray+daemon idle RSS: %d KiB", rss(t, cmd.Process.Pid))

	marker := "lnk-tray-marker-" + strconv.Itoa(os.Getpid())
	wrapped := time.Now()
	a, pa := w.startWrapped("--name", "alpha", "--", "sh", "-c", "sleep 600 & sleep 600; : "+marker)
	tv.waitMenu("alpha", func(m menuItem) bool { _, ok := m.find("alpha — "); return ok })
	t.Logf("FIGURE menu shows a new sandbox %v after its wrap returned", time.Since(wrapped).Round(time.Millisecond))
	ask := `for i in 1 2 3 4 5; do curl -s -o /dev/null http://blocked.example/; done; ` +
		`curl -s -X POST -H 'Content-Type: application/json' --data '{"question":"May I deploy?"}' http://lnk.sandbox/ask; sleep 600`
	b, _ := w.startWrapped("--name", "beta", "--", "sh", "-c", ask)
	sa := w.waitState(a.ID, apitype.StateRunning)
	w.waitState(b.ID, apitype.StateRunning)

	m = tv.waitMenu("alpha, beta and the question", func(m menuItem) bool {
		_, okA := m.find("alpha — running")
		_, okB := m.find("beta — running")
		_, okQ := m.find("? beta")
		return okA && okB && okQ
	})
	t.Logf("the menu:\n%s", strings.Join(m.labels("  "), "\n"))
	if tt := tv.tooltip(); tt != "lnk sandbox: 2 running, 1 question" {
		t.Errorf("tooltip = %q", tt)
	}
	if _, _, px := tv.icon(); bytes.Equal(px, idle) {
		t.Error("the icon did not change from idle with a question waiting")
	}
	if pa, ok := m.find("Pause all"); !ok || !pa.enabled() {
		t.Error("Pause all is not enabled with sandboxes running")
	}
	alpha, _ := m.find("alpha — running")
	for _, want := range []string{"command: sh -c sleep 600", "folder: " + w.folder, "last blocked: none", "Stop", "Pause", "Show log"} {
		if _, ok := alpha.find(want); !ok {
			t.Errorf("alpha's submenu has no %q:\n%s", want, strings.Join(alpha.labels(""), "\n"))
		}
	}
	tv.waitMenu("beta's last blocked host", func(m menuItem) bool {
		_, ok := m.find("last blocked: blocked.example:80")
		return ok
	})
	notes.wait(t, "connection blocked", "blocked.example:80")
	notes.wait(t, "a question waits", "beta")

	// Stop alpha from the menu; a click that lands while the menu is
	// rebuilt is lost, so it is sent again until the effect shows.
	if len(processesWith(marker)) == 0 {
		t.Fatal("cannot see alpha's processes")
	}
	for i := 0; ; i++ {
		stop, ok := tv.menu().find("alpha — ")
		if ok {
			if s, ok := stop.find("Stop"); ok {
				tv.click(s.ID)
			}
		}
		if w.sandbox(a.ID).State == apitype.StateStopped {
			break
		}
		if i == 40 {
			t.Fatalf("Stop in the menu did not stop alpha:\n%s", strings.Join(tv.menu().labels(""), "\n"))
		}
		time.Sleep(250 * time.Millisecond)
	}
	pa.wait(t, 10*time.Second)
	if !waitGone(sa.InitPID, 5*time.Second) {
		t.Errorf("alpha's init %d survived Stop", sa.InitPID)
	}
	for i := 0; i < 50 && len(processesWith(marker)) > 0; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if left := processesWith(marker); len(left) > 0 {
		t.Errorf("alpha's processes are still there after Stop: %v", left)
	}
	tv.waitMenu("alpha gone", func(m menuItem) bool { _, ok := m.find("alpha — "); return !ok })
	notes.wait(t, "alpha ended", "was stopped")
	if n := notes.count("connection blocked", "blocked.example:80"); n != 1 {
		t.Errorf("5 blocked attempts made %d notifications, want 1 (rate limited)", n)
	}
	for _, n := range notes.all() {
		if strings.Contains(n.Body, "lnk.sandbox/ask?") || strings.Contains(n.Body, "Authorization") {
			t.Errorf("a notification shows too much: %+v", n)
		}
	}
}
