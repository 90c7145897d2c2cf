package installer

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// Autostart choices on Linux.
const (
	AutostartXDG     = "xdg"     // ~/.config/autostart (every desktop that follows XDG)
	AutostartSystemd = "systemd" // a systemd --user unit wanted by graphical-session.target
	AutostartNone    = "none"    // nothing starts at login
)

// Options describe the machine and the person's choices. Plan is pure:
// everything it needs is here, so every system's plan is tested on any.
type Options struct {
	// OS is "linux", "darwin" or "windows" (the BSDs are planned as
	// linux).
	OS string
	// Home is the home folder. ConfigHome and DataHome are
	// $XDG_CONFIG_HOME and $XDG_DATA_HOME ("" = the defaults under
	// Home); LocalAppData is %LOCALAPPDATA% on Windows.
	Home, ConfigHome, DataHome, LocalAppData string
	// StateDir is lnk's state folder, where the record of the install is
	// kept.
	StateDir string
	// Exe is the lnk binary that runs install.
	Exe string
	// BinDir is where the binary is copied ("" = ~/.local/bin, or
	// %LOCALAPPDATA%\Programs\lnk on Windows).
	BinDir string
	// InPlace uses Exe where it is instead of copying it.
	InPlace bool
	// Autostart is AutostartXDG (default), AutostartSystemd or
	// AutostartNone on Linux; on macOS and Windows anything but
	// AutostartNone starts the tray at login.
	Autostart string
}

// File is one file install writes.
type File struct {
	Path string
	Data []byte
	Mode uint32 // permission bits
	// What says what it is for, as install prints it.
	What string
}

// Link is one symbolic link install makes (systemd's "enable").
type Link struct {
	Path, Target string
	What         string
}

// RunValue is one value under HKCU\Software\Microsoft\Windows\CurrentVersion\Run.
type RunValue struct {
	Name, Command string
	What          string
}

// Plan is everything install writes, and so everything uninstall
// removes.
type Plan struct {
	OS string
	// Binary is where lnk is run from once installed.
	Binary string
	// CopyFrom is the binary copied to Binary; "" when used in place.
	CopyFrom string
	Files    []File
	Links    []Link
	Run      []RunValue
	// Record is the file that records what was installed.
	Record string
	// Notes are what install cannot do here, said plainly.
	Notes []string
}

// RunKey is the registry key of the autostart value on Windows (under
// HKEY_CURRENT_USER).
const RunKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// Names install uses.
const (
	AppID        = "lnk-sandbox"          // desktop entry, icon
	TrayID       = "lnk-sandbox-tray"     // autostart entry, systemd unit
	LaunchdLabel = "dev.lnk.sandbox.tray" // LaunchAgent
	RunName      = "lnk sandbox"          // Run key value
)

// Plan computes what install writes for o. It touches nothing.
func (o Options) Plan(icon []byte) (*Plan, error) {
	if o.Home == "" || !isAbs(o.OS, o.Home) {
		return nil, errors.New("install: the home folder is unknown or not absolute: set HOME")
	}
	if o.Exe == "" || !isAbs(o.OS, o.Exe) {
		return nil, fmt.Errorf("install: the lnk program's path %q is not absolute", o.Exe)
	}
	if o.StateDir == "" {
		return nil, errors.New("install: lnk's state folder is unknown")
	}
	switch o.Autostart {
	case "":
		o.Autostart = AutostartXDG
	case AutostartXDG, AutostartSystemd, AutostartNone:
	default:
		return nil, fmt.Errorf("install: autostart %q: say xdg, systemd or none", o.Autostart)
	}
	p := &Plan{OS: o.OS, Record: join(o.OS, o.StateDir, "installed.json")}
	exeName := "lnk"
	if o.OS == "windows" {
		exeName = "lnk.exe"
	}
	bin := o.BinDir
	if bin == "" {
		if o.OS == "windows" {
			if o.LocalAppData == "" {
				return nil, errors.New("install: %LOCALAPPDATA% is not set")
			}
			bin = join(o.OS, o.LocalAppData, "Programs", "lnk")
		} else {
			bin = join(o.OS, o.Home, ".local", "bin")
		}
	}
	for _, path := range []string{o.Exe, bin, o.Home} {
		if i := strings.IndexFunc(path, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 || !utf8.ValidString(path) {
			return nil, fmt.Errorf("install: the path %q has a control character or is not UTF-8, which a login entry cannot hold safely: use a plain folder", path)
		}
	}
	p.Binary = join(o.OS, bin, exeName)
	if o.InPlace || sameFile(o.OS, p.Binary, o.Exe) {
		p.Binary = o.Exe
	} else {
		p.CopyFrom = o.Exe
	}
	switch o.OS {
	case "windows":
		if err := planWindows(p, o); err != nil {
			return nil, err
		}
	case "darwin":
		planDarwin(p, o)
	default:
		planXDG(p, o, icon)
	}
	return p, nil
}

func isAbs(goos, p string) bool {
	if goos == "windows" {
		return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
	}
	return strings.HasPrefix(p, "/")
}

// join joins path elements with the target system's separator.
func join(goos string, elem ...string) string {
	if goos == "windows" {
		for i := range elem {
			elem[i] = strings.TrimRight(elem[i], `\/`)
		}
		return strings.Join(elem, `\`)
	}
	return path.Join(elem...)
}

func sameFile(goos, a, b string) bool {
	if goos == "windows" {
		return strings.EqualFold(a, b)
	}
	return path.Clean(a) == path.Clean(b)
}
