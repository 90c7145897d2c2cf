package installer

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// tree lists every path under root with its mode and content, to prove
// uninstall leaves a home as install found it.
func tree(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		info, _ := d.Info()
		line := strings.TrimPrefix(p, root) + " " + info.Mode().String()
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			line += " " + sum(b)
		}
		lines = append(lines, line)
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// home makes a temporary home with a few things of the person's own,
// and a downloaded lnk.
func home(t *testing.T) (string, Options) {
	if runtime.GOOS != "linux" {
		t.Skip("the apply test runs the Linux plan")
	}
	h := t.TempDir()
	for _, d := range []string{".config/autostart", ".local/share", "Downloads"} {
		os.MkdirAll(filepath.Join(h, d), 0o755)
	}
	os.WriteFile(filepath.Join(h, ".config/autostart/other.desktop"), []byte("[Desktop Entry]\n"), 0o644)
	exe := filepath.Join(h, "Downloads", "lnk")
	os.WriteFile(exe, []byte("#!/bin/sh\necho lnk\n"), 0o755)
	return h, Options{OS: "linux", Home: h, StateDir: filepath.Join(h, ".local/state/lnk"), Exe: exe}
}

func install(t *testing.T, o Options) string {
	t.Helper()
	p, err := o.Plan([]byte("icon"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Install(p, &out); err != nil {
		t.Fatalf("install: %v\n%s", err, out.String())
	}
	return out.String()
}

func uninstall(t *testing.T, o Options) string {
	t.Helper()
	var out bytes.Buffer
	if err := Uninstall(filepath.Join(o.StateDir, "installed.json"), &out); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out.String())
	}
	return out.String()
}

func TestInstallUninstallLeavesHomeAsItWas(t *testing.T) {
	h, o := home(t)
	before := tree(t, h)
	out := install(t, o)
	for _, want := range []string{"wrote     " + filepath.Join(h, ".local/bin/lnk"), ".config/autostart/lnk-sandbox-tray.desktop",
		"applications/lnk-sandbox.desktop", "recorded  "} {
		if !strings.Contains(out, want) {
			t.Errorf("install did not say %q:\n%s", want, out)
		}
	}
	bin, err := os.Stat(filepath.Join(h, ".local/bin/lnk"))
	if err != nil || bin.Mode().Perm() != 0o755 {
		t.Errorf("the copied program: %v %v", bin, err)
	}
	entry, _ := os.ReadFile(filepath.Join(h, ".config/autostart/lnk-sandbox-tray.desktop"))
	if !strings.Contains(string(entry), "Exec="+filepath.Join(h, ".local/bin/lnk")+" sandbox tray\n") {
		t.Errorf("autostart entry:\n%s", entry)
	}
	installed := tree(t, h)

	// Again: nothing changes.
	out = install(t, o)
	if strings.Contains(out, "wrote") || tree(t, h) != installed {
		t.Errorf("a second install changed things:\n%s", out)
	}
	// From the installed copy: it is used in place and stays recorded.
	o2 := o
	o2.Exe = filepath.Join(h, ".local/bin/lnk")
	if out = install(t, o2); !strings.Contains(out, "uses      "+o2.Exe) || tree(t, h) != installed {
		t.Errorf("install from the installed copy:\n%s", out)
	}

	out = uninstall(t, o)
	if after := tree(t, h); after != before {
		t.Errorf("uninstall did not leave the home as it was:\n%s\n--- before:\n%s\n--- after:\n%s", out, before, after)
	}
	if out = uninstall(t, o); !strings.Contains(out, "nothing to remove") {
		t.Errorf("second uninstall: %s", out)
	}
}

func TestInstallSwitchesAutostart(t *testing.T) {
	h, o := home(t)
	before := tree(t, h)
	install(t, o)
	o.Autostart = AutostartSystemd
	out := install(t, o)
	if _, err := os.Stat(filepath.Join(h, ".config/autostart/lnk-sandbox-tray.desktop")); err == nil {
		t.Errorf("the XDG entry stayed after switching to systemd:\n%s", out)
	}
	link := filepath.Join(h, ".config/systemd/user/graphical-session.target.wants/lnk-sandbox-tray.service")
	if target, err := os.Readlink(link); err != nil || target != "../lnk-sandbox-tray.service" {
		t.Errorf("the unit is not enabled: %q %v", target, err)
	}
	if _, err := os.Stat(link); err != nil {
		t.Errorf("the link does not reach the unit: %v", err)
	}
	uninstall(t, o)
	if after := tree(t, h); after != before {
		t.Errorf("uninstall after a switch left:\n%s\n--- before:\n%s", after, before)
	}
}

func TestInstallRefusesForeignFiles(t *testing.T) {
	h, o := home(t)
	mine := filepath.Join(h, ".config/autostart/lnk-sandbox-tray.desktop")
	os.WriteFile(mine, []byte("[Desktop Entry]\nExec=something-else\n"), 0o644)
	p, _ := o.Plan([]byte("icon"))
	var out bytes.Buffer
	err := Install(p, &out)
	if err == nil || !strings.Contains(err.Error(), "lnk did not write it: move it away") {
		t.Fatalf("install over a file of the person's: %v\n%s", err, out.String())
	}
	if b, _ := os.ReadFile(mine); !strings.Contains(string(b), "something-else") {
		t.Error("the person's file was overwritten")
	}
}

func TestUninstallKeepsChangedFiles(t *testing.T) {
	h, o := home(t)
	install(t, o)
	entry := filepath.Join(h, ".local/share/applications/lnk-sandbox.desktop")
	os.WriteFile(entry, []byte("[Desktop Entry]\nName=edited by hand\n"), 0o644)
	out := uninstall(t, o)
	if !strings.Contains(out, "kept      "+entry+": changed since install") {
		t.Errorf("uninstall said:\n%s", out)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Error("a file changed by hand was removed")
	}
	if _, err := os.Stat(filepath.Join(h, ".local/bin/lnk")); err == nil {
		t.Error("the copied program was not removed")
	}
}
