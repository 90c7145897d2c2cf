package cli

import "github.com/spf13/cobra"

func newTrayCmd() *cobra.Command {
	opts := DaemonOptions{Tray: true}
	c := daemonCmd(&opts)
	c.Use = "tray"
	c.Short = "Run the daemon with its tray icon and notifications (started on login by 'install')"
	c.Long = `Run lnk's per-user daemon in the foreground with a tray icon: the icon
shows whether sandboxes run, are paused, or a question waits; its menu
lists each sandbox (command, folder, uptime, last blocked host) with Stop,
Pause/Resume and its log, the waiting questions, Pause all, the log, the
settings folder and Quit. Blocked connections, waiting questions and
sandboxes that were stopped or failed are notified on the desktop.

The other verbs start the tray (instead of the bare daemon) on their own
when a desktop session is there; 'lnk sandbox install' starts it on login.
Without a tray host on the desktop (GNOME without the AppIndicator
extension) no icon shows, but the daemon and the notifications work:
'lnk sandbox doctor' says why. Quit asks first when sandboxes run, since
quitting stops them.`
	return c
}
