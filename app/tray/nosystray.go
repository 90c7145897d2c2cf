//go:build darwin && !cgo

package tray

import "context"

// HasIcon is false: this macOS build has no cgo, which the menu bar icon
// needs. Build lnk on a Mac with cgo for the icon.
const HasIcon = false

// Run, in a build without the icon, follows the daemon for notifications
// only, until ctx ends.
func Run(ctx context.Context, m Model, o Options) error {
	a := newApp(m, o, func() {})
	if o.Logf != nil {
		o.Logf("tray: this lnk was built without cgo: no menu bar icon; notifications only")
	}
	a.follow(ctx, nil)
	return nil
}
