//go:build linux

package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listTree lists the paths under root with their modes and sizes.
func listTree(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		line := strings.TrimPrefix(p, root) + " " + info.Mode().String()
		if d.Type().IsRegular() {
			line += " " + strconv.FormatInt(info.Size(), 10)
		}
		lines = append(lines, line)
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// install and uninstall, run as a person would in a fresh home: the
// program is copied, the tray starts at login, a desktop entry is there;
// uninstall leaves the home exactly as it was.
func TestInstallUninstall(t *testing.T) {
	w := newWorld(t, true)
	before := listTree(t, w.home)
	out := w.must("install")
	bin := filepath.Join(w.home, ".local", "bin", "lnk")
	for _, want := range []string{"wrote     " + bin, "autostart/lnk-sandbox-tray.desktop", "applications/lnk-sandbox.desktop", "recorded  "} {
		if !strings.Contains(out, want) {
			t.Errorf("install did not say %q:\n%s", want, out)
		}
	}
	entry, err := os.ReadFile(filepath.Join(w.home, ".config", "autostart", "lnk-sandbox-tray.desktop"))
	if err != nil || !strings.Contains(string(entry), "Exec="+bin+" sandbox tray") {
		t.Errorf("autostart entry: %v\n%s", err, entry)
	}
	if out := w.must("install"); strings.Contains(out, "wrote ") {
		t.Errorf("a second install wrote again:\n%s", out)
	}
	out = w.must("uninstall")
	if after := listTree(t, w.home); after != before {
		t.Errorf("uninstall left the home changed:\n%s\nbefore:\n%s\nafter:\n%s", out, before, after)
	}
	if out := w.must("uninstall"); !strings.Contains(out, "nothing to remove") {
		t.Errorf("second uninstall: %s", out)
	}
}

// With a desktop session (a display and a session bus), the first verb
// starts the tray, not the bare daemon: its icon registers on the bus.
func TestAutoStartStartsTray(t *testing.T) {
	w := newWorld(t, true)
	display := xvfb(t)
	bus := privateBus(t)
	watcher := serveWatcher(t, bus)
	w.extraEnv = []string{"DISPLAY=" + display, "DBUS_SESSION_BUS_ADDRESS=" + bus}
	w.must("run", "--", "true")
	name := watcher.item(t)
	if name == "" {
		t.Fatal("no tray registered")
	}
	pid := w.daemonPID()
	cmdline, _ := os.ReadFile("/proc/" + itoa(pid) + "/cmdline")
	if !strings.Contains(string(cmdline), "sandbox\x00tray\x00") {
		t.Errorf("the started daemon is %q, want the tray", cmdline)
	}
	// Without a desktop session, the bare daemon.
	w2 := newWorld(t, true)
	w2.must("run", "--", "true")
	time.Sleep(100 * time.Millisecond)
	cmdline, _ = os.ReadFile("/proc/" + itoa(w2.daemonPID()) + "/cmdline")
	if !strings.Contains(string(cmdline), "sandbox\x00daemon\x00") {
		t.Errorf("headless, the started daemon is %q", cmdline)
	}
}
