package installer

import "strings"

// planWindows plans the Run value that starts the tray at login.
func planWindows(p *Plan, o Options) {
	if o.Autostart != AutostartNone {
		p.Run = append(p.Run, RunValue{
			Name: RunName, Command: windowsCommand(p.Binary, "sandbox", "tray"),
			What: `autostart: HKCU\` + RunKey + ` starts the tray when you log in`,
		})
	}
	p.Notes = append(p.Notes, "no Start menu shortcut is made on Windows yet: run 'lnk sandbox tray' or log in again")
}

// windowsCommand quotes a command line as Windows programs parse it
// (CommandLineToArgvW): arguments with spaces or quotes are quoted, with
// backslashes before a quote doubled.
func windowsCommand(args ...string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\"") {
			out[i] = a
			continue
		}
		var b strings.Builder
		b.WriteByte('"')
		slashes := 0
		for _, r := range a {
			switch r {
			case '\\':
				slashes++
				continue
			case '"':
				b.WriteString(strings.Repeat(`\`, 2*slashes+1))
			default:
				b.WriteString(strings.Repeat(`\`, slashes))
			}
			slashes = 0
			b.WriteRune(r)
		}
		b.WriteString(strings.Repeat(`\`, 2*slashes))
		b.WriteByte('"')
		out[i] = b.String()
	}
	return strings.Join(out, " ")
}
