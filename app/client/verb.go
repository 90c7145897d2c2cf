package client

// DaemonVerb is the verb EnsureDaemon starts: "tray" (the daemon with its
// tray icon and notifications) when a desktop session is there, else
// "daemon". On Linux and the BSDs a desktop session is a display (DISPLAY
// or WAYLAND_DISPLAY) and a session bus (DBUS_SESSION_BUS_ADDRESS); on
// macOS it is any login that is not over SSH; on Windows, always.
// LNK_NO_TRAY=1 always starts the bare daemon.
func DaemonVerb(getenv func(string) string, goos string) string {
	if getenv("LNK_NO_TRAY") == "1" {
		return "daemon"
	}
	switch goos {
	case "windows":
		return "tray"
	case "darwin":
		if getenv("SSH_CONNECTION") == "" && getenv("SSH_TTY") == "" {
			return "tray"
		}
		return "daemon"
	}
	display := getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
	bus := getenv("DBUS_SESSION_BUS_ADDRESS") != ""
	if display && bus {
		return "tray"
	}
	return "daemon"
}
