// Package installer puts lnk on a person's machine so that its tray starts
// at login, and takes it off again: `lnk sandbox install` and `lnk sandbox
// uninstall`.
//
// # What install writes
//
// [Options.Plan] computes everything, touching nothing, so every system's
// files are golden-tested on any (testdata/*.golden):
//
//   - The program: copied to ~/.local/bin/lnk (%LOCALAPPDATA%\Programs\lnk\lnk.exe
//     on Windows), or used where it is with --in-place, or when install
//     runs from that copy already.
//   - Linux and the BSDs: the XDG autostart entry
//     ~/.config/autostart/lnk-sandbox-tray.desktop, or with
//     --autostart=systemd a systemd --user unit
//     (~/.config/systemd/user/lnk-sandbox-tray.service, wanted by
//     graphical-session.target through the link `systemctl --user enable`
//     would make), or neither with --autostart=none; and the desktop entry
//     ~/.local/share/applications/lnk-sandbox.desktop with its icon in
//     the hicolor theme.
//   - macOS: the LaunchAgent ~/Library/LaunchAgents/dev.lnk.sandbox.tray.plist
//     (RunAtLoad, in the Aqua session, restarted after a crash but not
//     after Quit). No application bundle is made.
//   - Windows: the value "lnk sandbox" under
//     HKCU\Software\Microsoft\Windows\CurrentVersion\Run. No Start menu
//     shortcut is made yet.
//
// Every command line in these files is quoted by the rules of the file
// that holds it (the Desktop Entry Exec key, systemd's ExecStart, XML,
// Windows's command line), so a home folder with spaces, quotes, $ or %
// runs the right program.
//
// # Exactly what it wrote
//
// [Install] writes each file through a temporary one renamed into place,
// says on one line what it did to each (wrote, unchanged, uses), and
// records every file (with its SHA-256), link, registry value and folder
// it created in installed.json in lnk's state folder. Running it again
// changes nothing that is right already; switching --autostart removes
// what the earlier choice wrote. A file in the way that lnk did not write
// is refused, never overwritten.
//
// [Uninstall] removes exactly what the record lists, and nothing else: a
// file changed since install is kept (and said so), the folders install
// created are removed only when empty, and then the record. Without a
// record it does nothing. A tray that runs keeps running until you quit
// it or log out.
package installer
