package installer

import (
	"fmt"
	"path"
	"strings"
)

// planXDG plans Linux's (and the BSDs') desktop files: the autostart
// entry or systemd unit, the desktop entry and its icon.
func planXDG(p *Plan, o Options, icon []byte) {
	config := o.ConfigHome
	if config == "" || !strings.HasPrefix(config, "/") {
		config = path.Join(o.Home, ".config")
	}
	data := o.DataHome
	if data == "" || !strings.HasPrefix(data, "/") {
		data = path.Join(o.Home, ".local", "share")
	}
	switch o.Autostart {
	case AutostartXDG:
		p.Files = append(p.Files, File{
			Path: path.Join(config, "autostart", TrayID+".desktop"),
			Data: []byte(autostartEntry(p.Binary)), Mode: 0o644,
			What: "autostart entry: the tray starts when you log in to the desktop",
		})
	case AutostartSystemd:
		unit := path.Join(config, "systemd", "user", TrayID+".service")
		p.Files = append(p.Files, File{
			Path: unit, Data: []byte(systemdUnit(p.Binary)), Mode: 0o644,
			What: "systemd --user unit: the tray runs with the graphical session",
		})
		p.Links = append(p.Links, Link{
			Path:   path.Join(config, "systemd", "user", "graphical-session.target.wants", TrayID+".service"),
			Target: "../" + TrayID + ".service",
			What:   "enables the unit (as systemctl --user enable does)",
		})
		p.Notes = append(p.Notes, "run 'systemctl --user daemon-reload' (or log in again) for systemd to see the unit")
	}
	p.Files = append(p.Files,
		File{
			Path: path.Join(data, "applications", AppID+".desktop"),
			Data: []byte(desktopEntry(p.Binary)), Mode: 0o644,
			What: "desktop entry: 'lnk sandbox' in the applications menu starts the tray",
		},
		File{
			Path: path.Join(data, "icons", "hicolor", "64x64", "apps", AppID+".png"),
			Data: icon, Mode: 0o644,
			What: "icon of the desktop entry",
		})
}

// autostartEntry is the XDG autostart file of the tray.
func autostartEntry(bin string) string {
	return `[Desktop Entry]
Type=Application
Name=lnk sandbox tray
Comment=lnk sandbox's daemon and tray icon: your sandboxes, their network, and their questions
Exec=` + desktopExec(bin, "sandbox", "tray") + `
Icon=` + AppID + `
Terminal=false
NoDisplay=true
X-GNOME-Autostart-enabled=true
`
}

// desktopEntry is the applications menu's entry.
func desktopEntry(bin string) string {
	return `[Desktop Entry]
Type=Application
Name=lnk sandbox
GenericName=Sandbox for AI agents
Comment=Show lnk sandbox's tray icon: your sandboxes, their network, and their questions
Exec=` + desktopExec(bin, "sandbox", "tray") + `
Icon=` + AppID + `
Terminal=false
Categories=Utility;Security;
StartupNotify=false
`
}

// desktopExec quotes a command line for a desktop entry's Exec key: each
// argument in double quotes with ", `, $ and \ escaped, and % doubled
// (Desktop Entry Specification, "The Exec key"), then the key's own
// escaping of backslashes.
func desktopExec(args ...string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n\"'\\><~|&;$*?#()`%=") {
			out[i] = a
			continue
		}
		var b strings.Builder
		b.WriteByte('"')
		for i := 0; i < len(a); i++ {
			switch a[i] {
			case '"', '`', '$', '\\':
				b.WriteByte('\\')
			}
			b.WriteByte(a[i])
		}
		b.WriteByte('"')
		out[i] = strings.ReplaceAll(b.String(), "%", "%%")
	}
	return strings.ReplaceAll(strings.Join(out, " "), `\`, `\\`)
}

// systemdUnit is the tray's systemd --user unit.
func systemdUnit(bin string) string {
	return fmt.Sprintf(`[Unit]
Description=lnk sandbox: the daemon and its tray icon
PartOf=graphical-session.target
After=graphical-session.target

[Service]
ExecStart=%s sandbox tray
# Quit in the tray's menu exits 0 and is not undone.
Restart=on-failure

[Install]
WantedBy=graphical-session.target
`, systemdQuote(bin))
}

// systemdQuote quotes one word for ExecStart: double quotes, with \ and "
// escaped, % and $ doubled (systemd.service(5) and systemd.unit(5)).
func systemdQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "$", "$$")
	return `"` + r.Replace(s) + `"`
}
