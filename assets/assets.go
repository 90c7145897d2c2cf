package assets

import _ "embed"

//go:generate go run ./internal/gen -out icons

//go:embed icons/lnk.png
var appIcon []byte

// AppIcon is lnk's application icon, a 64x64 PNG: the window icon of its
// dialogs and the icon of its desktop entry.
func AppIcon() []byte { return appIcon }
