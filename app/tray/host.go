package tray

import (
	"context"
	"os"
	"runtime"
	"time"

	"github.com/godbus/dbus/v5"
)

// noHostNote writes one clear line to the daemon's log when no
// StatusNotifier host is on the session bus (Linux): the icon then shows
// nowhere, though everything else works.
func noHostNote(logf func(string, ...any)) {
	if logf == nil || runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return
	}
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" {
		logf("tray: no session bus (DBUS_SESSION_BUS_ADDRESS is not set): no icon and no notifications; see 'lnk sandbox doctor'")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		logf("tray: cannot reach the session bus (%v): no icon and no notifications", err)
		return
	}
	defer conn.Close()
	var owned bool
	err = conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&owned)
	if err == nil && !owned {
		logf("tray: no StatusNotifier host on the session bus: the icon shows once one starts (GNOME needs the AppIndicator extension); notifications work; see 'lnk sandbox doctor'")
	}
}
