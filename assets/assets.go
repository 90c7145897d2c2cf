package assets

import (
	"embed"
	"fmt"
)

//go:generate go run ./internal/gen -out icons

//go:embed icons/lnk.png
var appIcon []byte

//go:embed icons/tray-*
var trayIcons embed.FS

// AppIcon is lnk's application icon, a 64x64 PNG: the window icon of its
// dialogs and the icon of its desktop entry.
func AppIcon() []byte { return appIcon }

// TrayState is what the tray icon shows at a glance.
type TrayState int

// The tray's states, from least to most urgent.
const (
	TrayIdle     TrayState = iota // no sandbox runs: grey
	TrayRunning                   // sandboxes run: blue
	TrayPaused                    // a sandbox is paused: amber with pause bars
	TrayQuestion                  // a question waits: blue with a red dot
)

func (s TrayState) String() string {
	switch s {
	case TrayIdle:
		return "idle"
	case TrayRunning:
		return "running"
	case TrayPaused:
		return "paused"
	case TrayQuestion:
		return "question"
	}
	return fmt.Sprintf("TrayState(%d)", int(s))
}

// Icon formats of the tray's icons, one per system.
const (
	FormatPNG      = "png"      // 32x32 PNG (Linux: StatusNotifierItem)
	FormatICO      = "ico"      // 16 and 32 pixel icon (Windows)
	FormatTemplate = "template" // 32x32 black-on-transparent PNG (macOS menu bar)
)

// TrayIcon returns the tray icon of state s in format (a Format*
// constant), or nil for an unknown state or format.
func TrayIcon(s TrayState, format string) []byte {
	name := "icons/tray-" + s.String()
	switch format {
	case FormatPNG:
		name += ".png"
	case FormatICO:
		name += ".ico"
	case FormatTemplate:
		name += "-template.png"
	default:
		return nil
	}
	b, err := trayIcons.ReadFile(name)
	if err != nil {
		return nil
	}
	return b
}
