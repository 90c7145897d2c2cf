package cli

import (
	"context"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/godbus/dbus/v5"
)

// Well-known names on the session bus the tray and notifications need.
const (
	snWatcherName = "org.kde.StatusNotifierWatcher"
	notifyName    = "org.freedesktop.Notifications"
)

// trayChecks ask the session bus (Linux and the BSDs) for a tray host,
// which shows the icon, and a notification service. Elsewhere the system
// has both.
func trayChecks() []check {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return nil
	}
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" {
		return nil // the session bus line says it
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return []check{{name: "tray icon", optional: true, detail: "cannot reach the session bus: " + err.Error(),
			fix: "run lnk from a desktop session"}}
	}
	defer conn.Close()
	return []check{trayHostCheck(ctx, conn), notifyCheck(ctx, conn)}
}

// hasOwner reports whether name has an owner on the bus now.
func hasOwner(ctx context.Context, conn *dbus.Conn, name string) bool {
	var owned bool
	err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned)
	return err == nil && owned
}

func trayHostCheck(ctx context.Context, conn *dbus.Conn) check {
	c := check{name: "tray icon", optional: true,
		fix: "GNOME: install and enable the AppIndicator extension (gnome-shell-extension-appindicator); " +
			"Xfce, LXQt, MATE, Cinnamon: add the panel's status tray / notification area; KDE has it"}
	if !hasOwner(ctx, conn, snWatcherName) {
		c.detail = "no StatusNotifier host on the session bus: the tray runs and notifies, but no icon shows"
		return c
	}
	v, err := conn.Object(snWatcherName, "/StatusNotifierWatcher").GetProperty(snWatcherName + ".IsStatusNotifierHostRegistered")
	if registered, ok := v.Value().(bool); err == nil && ok && !registered {
		c.detail = "a StatusNotifierWatcher runs but no host shows its items: no icon shows"
		return c
	}
	c.ok, c.detail = true, "a StatusNotifier host is on the session bus"
	return c
}

func notifyCheck(ctx context.Context, conn *dbus.Conn) check {
	c := check{name: "notifications", optional: true,
		fix: "install a notification daemon (your desktop's, or dunst, or notification-daemon)"}
	if hasOwner(ctx, conn, notifyName) {
		c.ok, c.detail = true, "a notification service runs on the session bus"
		return c
	}
	var names []string
	err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.ListActivatableNames", 0).Store(&names)
	if err == nil && slices.Contains(names, notifyName) {
		c.ok, c.detail = true, "a notification service starts on demand on the session bus"
		return c
	}
	c.detail = "no notification service on the session bus: blocked connections and questions are not notified"
	return c
}
