package installer

import (
	"encoding/xml"
	"strings"
)

// planDarwin plans the LaunchAgent that starts the tray at login.
func planDarwin(p *Plan, o Options) {
	if o.Autostart != AutostartNone {
		p.Files = append(p.Files, File{
			Path: join(o.OS, o.Home, "Library", "LaunchAgents", LaunchdLabel+".plist"),
			Data: []byte(launchAgent(p.Binary)), Mode: 0o644,
			What: "LaunchAgent: the tray starts when you log in",
		})
		p.Notes = append(p.Notes, "the tray starts at your next login; start it now with 'launchctl load ~/Library/LaunchAgents/"+LaunchdLabel+".plist'")
	}
	p.Notes = append(p.Notes, "no application bundle is made on macOS: the menu bar icon is the way in")
}

// launchAgent is the LaunchAgent property list. Quit in the tray exits 0
// and is not undone; a crash is restarted.
func launchAgent(bin string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + LaunchdLabel + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range []string{bin, "sandbox", "tray"} {
		b.WriteString("\t\t<string>" + xmlText(a) + "</string>\n")
	}
	b.WriteString(`	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>LimitLoadToSessionType</key>
	<string>Aqua</string>
	<key>ProcessType</key>
	<string>Interactive</string>
</dict>
</plist>
`)
	return b.String()
}

func xmlText(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
