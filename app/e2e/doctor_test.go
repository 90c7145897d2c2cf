//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// doctor passes where the wall stands, and where bwrap is missing it fails
// with a line that says how to fix it.
func TestDoctor(t *testing.T) {
	w := newWorld(t, true)
	out := w.must("doctor")
	for _, want := range []string{"ok    bwrap:", "ok    bwrap as you", "ok    Landlock", "ok    seccomp", "ok    wall"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	// A PATH without bwrap (but with sh and friends, through a folder of
	// links).
	bin := filepath.Join(w.root, "bin")
	os.Mkdir(bin, 0o755)
	for _, p := range []string{"sh", "true", "zenity"} {
		if full, err := exec.LookPath(p); err == nil {
			os.Symlink(full, filepath.Join(bin, p))
		}
	}
	cmd := exec.Command(lnkBin, "sandbox", "doctor")
	cmd.Env = append(w.env(), "PATH="+bin)
	b, err := cmd.Output()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 125 || !strings.Contains(string(b), "FAIL  bwrap: not found") || !strings.Contains(string(b), "install the bubblewrap package") {
		t.Errorf("doctor without bwrap: %v\n%s", err, b)
	}
}
