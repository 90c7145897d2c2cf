// Package tray is lnk's tray icon: a fyne.io/systray view of the daemon's
// state, and the desktop notifications. `lnk sandbox tray` runs it in the
// daemon's process (app/lnk connects the two); it never talks to a
// sandbox, and every action it takes goes through the daemon's own
// methods ([Model]), as the CLI's verbs do through the control socket.
//
// # The icon
//
// The icon says at a glance what runs: grey when no sandbox runs, blue
// when some do, amber with pause bars when one is paused, and a red dot
// when a question waits (the most urgent wins). Its tooltip counts them:
// "lnk sandbox: 2 running, 1 question". The icons are drawn in
// lnk.dev/sandbox/assets: PNG on Linux, ICO on Windows, a template image
// on macOS.
//
// # The menu
//
// One entry per sandbox that is starting, running or paused (finished
// ones leave the menu; `lnk sandbox list` keeps them for an hour): its
// name, state and uptime, and a submenu with its command, folder, id and
// spec, uptime, and the last host the proxy refused it, then Stop, Pause
// or Resume, and Show log. Then the waiting questions (clicking one shows
// its dialog, when a display and zenity are there; else the notification
// says to answer with `lnk sandbox answer`), Pause all (and Resume all
// when a sandbox is paused), Open log, Settings folder, and Quit. All
// text is cleaned and elided (dialogs.Clean, dialogs.Elide), and a URL in
// a question is shown without its query or fragment, which may carry a
// token; the dialog shows it whole.
//
// Quit stops the daemon, and with it every sandbox: when sandboxes run it
// asks first (a dialog naming them, "Keep running" the default) and does
// nothing if it cannot ask. Show log and Open log write the newest 5000
// records of the proxy's log, as `lnk sandbox log` prints them, to a
// file in lnk's runtime folder and open it with the desktop's program.
//
// The menu follows the daemon live: the daemon calls the tray after every
// change of its registry (daemon.Subscribe), and the tray watches the
// Asker's queue (which also means questions wait for the person instead
// of being refused when no dialog or terminal can show them). The menu is
// rebuilt when what it shows changes, and every 15 s for the uptimes.
// systray drops a click that arrives while nothing receives on the item's
// channel, so each item has a goroutine that only receives, and runs the
// action in a goroutine of its own.
//
// # Notifications
//
// Sent with beeep (D-Bus org.freedesktop.Notifications on Linux, the
// notification centre on macOS, toasts on Windows) for: a connection the
// proxy refused (sandbox and host:port, at most once a minute for one
// sandbox and host, so a retry loop does not flood the desktop); a
// question waiting on the queue (one shown in a dialog or on a terminal
// is seen already); a sandbox stopped, or exited with a code other than
// 0. They never show a URL's query, a secret, or the environment.
//
// # Without a tray host
//
// On Linux the icon is a StatusNotifierItem on the session bus. Where no
// host shows those (GNOME without the AppIndicator extension), the tray
// runs anyway: the daemon serves, notifications are sent, and `lnk
// sandbox doctor` says why no icon shows and how to get one. macOS builds
// without cgo have no icon ([HasIcon] is false) and notify only.
package tray
