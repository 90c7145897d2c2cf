// Package assets holds lnk's icons, embedded in the binary. The PNGs and
// ICOs in icons/ are drawn by internal/gen (go generate ./assets), so they
// can be reviewed as code and regenerated at any size.
//
// [AppIcon] is the application's icon (dialogs, the desktop entry).
// [TrayIcon] is the tray's icon for each [TrayState] — idle (grey),
// running (blue), paused (amber, pause bars), a question waiting (a red
// dot) — as a PNG for Linux, an ICO for Windows, and a template PNG that
// the macOS menu bar recolours.
package assets
