//go:build linux

package e2e

import (
	"bufio"
	"image"
	"image/png"
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

// panelConfig is an xfce4-panel with one plugin, the status tray (it
// hosts StatusNotifierItems), along the top of the screen.
const panelConfig = `<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=6;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="32"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="systray"/>
  </property>
</channel>
`

// xvfb starts an X server of the test's own (so no other test's window
// is in the picture) and returns its DISPLAY.
func xvfb(t *testing.T) string {
	t.Helper()
	testenv.NeedCommand(t, "Xvfb", "xvfb")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1024x600x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case n := <-line:
		if n == "" {
			t.Fatal("Xvfb gave no display")
		}
		return ":" + n
	case <-time.After(15 * time.Second):
		t.Fatal("Xvfb did not start within 15s")
	}
	return ""
}

// artifacts is where CI keeps pictures: $LNK_ARTIFACTS, else
// build/artifacts in the source tree.
func artifacts(t *testing.T) string {
	dir := os.Getenv("LNK_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "build", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("no artifacts folder (%v): keeping pictures in a temporary one", err)
		return t.TempDir()
	}
	abs, _ := filepath.Abs(dir)
	return abs
}

// screenshot saves the whole screen of display as a PNG and decodes it.
func screenshot(t *testing.T, display, file string) image.Image {
	t.Helper()
	cmd := exec.Command("import", "-window", "root", file)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// findColour returns the centre of the pixels near c in rect, and how
// many there are.
func findColour(img image.Image, rect image.Rectangle, c [3]uint8) (image.Point, int) {
	var sx, sy, n int
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if near(r>>8, c[0]) && near(g>>8, c[1]) && near(b>>8, c[2]) {
				sx, sy, n = sx+x, sy+y, n+1
			}
		}
	}
	if n == 0 {
		return image.Point{}, 0
	}
	return image.Pt(sx/n, sy/n), n
}

func near(v uint32, c uint8) bool { return int(v)-int(c) <= 12 && int(c)-int(v) <= 12 }

// The tray in a real tray host (xfce4-panel's status tray, under Xvfb):
// its icon shows in the panel, a click opens its menu, and both are kept
// as a picture (CI keeps build/artifacts).
func TestTrayScreenshot(t *testing.T) {
	panel := testenv.NeedCommand(t, "xfce4-panel", "xfce4-panel")
	testenv.NeedCommand(t, "import", "imagemagick")
	testenv.NeedCommand(t, "xdotool", "xdotool")
	w := newWorld(t, true)
	display := xvfb(t)
	cfg := filepath.Join(w.root, "xdg-config")
	os.MkdirAll(filepath.Join(cfg, "xfce4", "xfconf", "xfce-perchannel-xml"), 0o755)
	os.WriteFile(filepath.Join(cfg, "xfce4", "xfconf", "xfce-perchannel-xml", "xfce4-panel.xml"), []byte(panelConfig), 0o644)
	desk := []string{"DISPLAY=" + display, "XDG_CONFIG_HOME=" + cfg, "NO_AT_BRIDGE=1"}
	bus := privateBusEnv(t, desk)

	pc := exec.Command(panel, "--disable-wm-check")
	pc.Env = append(append(os.Environ(), desk...), "DBUS_SESSION_BUS_ADDRESS="+bus)
	pc.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	plog := &syncBuffer{}
	pc.Stdout, pc.Stderr = plog, plog
	if err := pc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-pc.Process.Pid, syscall.SIGKILL); pc.Wait() })
	conn := busConn(t, bus)
	for i := 0; !hasName(conn, "org.kde.StatusNotifierWatcher"); i++ {
		if i == 300 {
			t.Fatalf("xfce4-panel hosts no StatusNotifierWatcher after 15s:\n%s", plog)
		}
		time.Sleep(50 * time.Millisecond)
	}

	w.startTray(bus, "DISPLAY="+display)
	resp, _ := w.startWrapped("--name", "build", "--", "sleep", "600")
	w.waitState(resp.ID, apitype.StateRunning)

	dir := artifacts(t)
	top := image.Rect(0, 0, 1024, 40)
	blue := [3]uint8{0x1f, 0x5f, 0xbf} // the running icon's colour (assets)
	var at image.Point
	for i := 0; ; i++ {
		img := screenshot(t, display, filepath.Join(dir, "tray-icon.png"))
		var n int
		if at, n = findColour(img, top, blue); n > 20 {
			break
		}
		if i == 80 {
			t.Fatalf("the running icon never showed in the panel (see %s):\n%s", filepath.Join(dir, "tray-icon.png"), plog)
		}
		time.Sleep(250 * time.Millisecond)
	}
	below := image.Rect(0, 40, 1024, 600)
	for i := 0; ; i++ {
		click := exec.Command("xdotool", "mousemove", "--sync", itoa(at.X), itoa(at.Y), "click", "1")
		click.Env = append(os.Environ(), "DISPLAY="+display)
		if out, err := click.CombinedOutput(); err != nil {
			t.Fatalf("xdotool: %v\n%s", err, out)
		}
		time.Sleep(time.Second)
		img := screenshot(t, display, filepath.Join(dir, "tray-menu.png"))
		// The menu is drawn on the black root window below the panel.
		if _, n := findColour(img, below, [3]uint8{0, 0, 0}); n < below.Dx()*below.Dy()*98/100 {
			break
		}
		if i == 5 {
			t.Fatalf("clicking the icon opened no menu (see %s)", filepath.Join(dir, "tray-menu.png"))
		}
	}
	t.Logf("kept %s and %s", filepath.Join(dir, "tray-icon.png"), filepath.Join(dir, "tray-menu.png"))
}

func itoa(n int) string { return strconv.Itoa(n) }
