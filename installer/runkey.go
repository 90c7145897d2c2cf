package installer

import (
	"fmt"

	"lnk.dev/sandbox/confine"
)

// planWindows plans the Run value that starts the tray at login. Its
// command line is quoted as Windows splits it (confine's
// WindowsCommandLine, the Windows runner's own quoting).
func planWindows(p *Plan, o Options) error {
	if o.Autostart != AutostartNone {
		cmd, err := confine.WindowsCommandLine([]string{p.Binary, "sandbox", "tray"})
		if err != nil {
			return fmt.Errorf("install: the login entry for %s: %v: install lnk in a plain folder", p.Binary, err)
		}
		p.Run = append(p.Run, RunValue{
			Name: RunName, Command: cmd,
			What: `autostart: HKCU\` + RunKey + ` starts the tray when you log in`,
		})
	}
	p.Notes = append(p.Notes, "no Start menu shortcut is made on Windows yet: run 'lnk sandbox tray' or log in again")
	return nil
}
