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

// clickUntil clicks the item labelled item in the submenu of the entry
// whose label starts with entry, again until done says it took effect (a
// click that lands while the menu is rebuilt is lost).
func (v *trayView) clickUntil(entry, item string, done func() bool) {
	v.t.Helper()
	for i := 0; ; i++ {
		if e, ok := v.menu().find(entry); ok {
			if it, ok := e.find(item); ok {
				v.click(it.ID)
			}
		}
		for j := 0; j < 5; j++ {
			if done() {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		if i == 40 {
			v.t.Fatalf("clicking %s > %s had no effect:\n%s", entry, item, strings.Join(v.menu().labels(""), "\n"))
		}
	}
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
	bin := filepath.Join(w.root, "desktop-bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "xdg-open"), []byte("#!/bin/sh\necho \"$1\" > "+filepath.Join(w.root, "opened")+"\n"), 0o755)
	cmd, _ := w.startTray(bus, "PATH="+bin+":"+os.Getenv("PATH"))
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
	idleRSS := rss(t, cmd.Process.Pid)
	t.Logf("FIGURE tray+daemon idle RSS: %d KiB", idleRSS)
	if idleRSS > 35<<10 {
		t.Errorf("the tray and daemon idle at %d KiB, over the 35 MiB goal", idleRSS)
	}

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

	// Pause and resume beta from its submenu: the icon and tooltip say
	// so.
	tv.clickUntil("beta — running", "Pause", func() bool { return w.sandbox(b.ID).State == apitype.StatePaused })
	tv.waitMenu("beta paused", func(m menuItem) bool {
		e, ok := m.find("beta — paused")
		_, okR := e.find("Resume")
		return ok && okR && tv.tooltip() == "lnk sandbox: 1 running, 1 paused, 1 question"
	})
	tv.clickUntil("beta — paused", "Resume", func() bool { return w.sandbox(b.ID).State == apitype.StateRunning })

	// Show log writes beta's log as text and opens it with the
	// desktop's opener (here a stand-in that notes what it was given).
	opened := filepath.Join(w.root, "opened")
	tv.clickUntil("beta — ", "Show log", func() bool { _, err := os.Stat(opened); return err == nil })
	path, _ := os.ReadFile(opened)
	text, err := os.ReadFile(strings.TrimSpace(string(path)))
	if err != nil || !strings.Contains(string(text), b.ID+"  deny   blocked.example:80") {
		t.Errorf("Show log opened %s: %v\n%s", path, err, text)
	}

	// Stop alpha from the menu; a click that lands while the menu is
	// rebuilt is lost, so it is sent again until the effect shows.
	if len(processesWith(marker)) == 0 {
		t.Fatal("cannot see alpha's processes")
	}
	tv.clickUntil("alpha — ", "Stop", func() bool { return w.sandbox(a.ID).State == apitype.StateStopped })
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

// doctor says why no tray icon shows, and whether notifications can be
// sent, from what is on the session bus.
func TestDoctorTray(t *testing.T) {
	w := newWorld(t, true)
	bus := privateBus(t)
	w.extraEnv = []string{"DBUS_SESSION_BUS_ADDRESS=" + bus}
	out := w.lnk("doctor").stdout
	if !strings.Contains(out, "warn  tray icon: no StatusNotifier host on the session bus") ||
		!strings.Contains(out, "AppIndicator extension") {
		t.Errorf("doctor without a tray host:\n%s", out)
	}
	serveWatcher(t, bus)
	serveNotifications(t, bus)
	out = w.lnk("doctor").stdout
	for _, want := range []string{"ok    tray icon: a StatusNotifier host", "ok    notifications: a notification service runs"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}

// xwindow waits up to d for a visible window whose name matches title on
// display, and returns its id.
func xwindow(display, title string, d time.Duration) string {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", title)
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		out, _ := cmd.Output()
		if f := strings.Fields(string(out)); len(f) > 0 {
			return f[0]
		}
		time.Sleep(100 * time.Millisecond)
	}
	return ""
}

func xkey(t *testing.T, display, wid, key string) {
	t.Helper()
	cmd := exec.Command("xdotool", "windowfocus", "--sync", wid, "key", key)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool key %s: %v\n%s", key, err, out)
	}
}

// Quit asks first while a sandbox runs, naming it and what happens to
// it; "Keep running" (the default) keeps everything, "Quit and stop them"
// ends the tray, its daemon, and the sandbox.
func TestTrayQuitAsks(t *testing.T) {
	testenv.NeedCommand(t, "zenity", "zenity")
	testenv.NeedCommand(t, "xdotool", "xdotool")
	w := newWorld(t, true)
	display := xvfb(t)
	bus := privateBus(t)
	watcher := serveWatcher(t, bus)
	cmd, _ := w.startTray(bus, "DISPLAY="+display, "NO_AT_BRIDGE=1")
	tv := &trayView{t: t, conn: busConn(t, bus), name: watcher.item(t)}
	resp, p := w.startWrapped("--name", "job", "--", "sleep", "600")
	w.waitState(resp.ID, apitype.StateRunning)
	tv.waitMenu("job", func(m menuItem) bool { _, ok := m.find("job — running"); return ok })

	quit := func() string {
		for i := 0; i < 10; i++ {
			if q, ok := tv.menu().find("Quit"); ok {
				tv.click(q.ID)
			}
			if wid := xwindow(display, "Quit lnk sandbox", 3*time.Second); wid != "" {
				return wid
			}
		}
		t.Fatal("Quit showed no dialog")
		return ""
	}
	wid := quit()
	screenshot(t, display, filepath.Join(artifacts(t), "tray-quit.png"))
	xkey(t, display, wid, "Return") // the default button: Keep running
	for i := 0; i < 50 && xwindow(display, "Quit lnk sandbox", 0) != ""; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	if !alive(cmd.Process.Pid) || w.sandbox(resp.ID).State != apitype.StateRunning {
		t.Fatal("Keep running did not keep the tray and the sandbox running")
	}

	wid = quit()
	xkey(t, display, wid, "alt+q")
	if !waitGone(cmd.Process.Pid, 15*time.Second) {
		t.Fatal("Quit and stop them did not end the tray")
	}
	p.wait(t, 15*time.Second)
}

// Without a tray host the tray's daemon still serves, says why no icon
// shows, and notifications still come.
func TestTrayWithoutHost(t *testing.T) {
	w := newWorld(t, true)
	bus := privateBus(t)
	notes := serveNotifications(t, bus)
	_, out := w.startTray(bus)
	resp, p := w.startWrapped("--name", "lonely", "--", "sleep", "600")
	w.waitState(resp.ID, apitype.StateRunning)
	w.must("stop", resp.ID)
	p.wait(t, 15*time.Second)
	notes.wait(t, "lonely ended", "was stopped")
	for i := 0; i < 100 && !strings.Contains(out.String(), "no StatusNotifier host"); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "tray: no StatusNotifier host on the session bus") {
		t.Errorf("the daemon's log does not say why no icon shows:\n%s", out)
	}
}
