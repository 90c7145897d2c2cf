//go:build cgo || !darwin

package tray

import (
	"context"
	"runtime"

	"fyne.io/systray"

	"lnk.dev/sandbox/assets"
)

// HasIcon is true when this build shows a tray icon (false only on
// macOS built without cgo).
const HasIcon = true

// Run shows the tray until ctx ends or the person chooses Quit, and
// sends notifications meanwhile. On macOS it must be called from the
// main goroutine (app/lnk's main does). Without a StatusNotifier host on
// the session bus (Linux), no icon shows but everything else works.
func Run(ctx context.Context, m Model, o Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := newApp(m, o, systray.Quit)
	done := make(chan struct{})
	onReady := func() {
		if runtime.GOOS != "darwin" { // macOS shows a title beside the icon
			systray.SetTitle("lnk sandbox")
		}
		go noHostNote(o.Logf)
		ui := &menu{a: a}
		go func() {
			defer close(done)
			a.follow(ctx, ui.render)
		}()
	}
	stop := context.AfterFunc(ctx, systray.Quit)
	defer stop()
	systray.Run(onReady, nil)
	cancel()
	<-done
	return nil
}

// menu draws views with fyne.io/systray. It rebuilds the menu when the
// view changes: systray drops a click that arrives while nothing receives
// on the item's channel, so each item has a goroutine that only receives
// (and runs the action in a goroutine of its own), until the item is
// removed and its channel closed.
type menu struct {
	a *app
}

func (u *menu) render(v view) {
	setIcon(v)
	systray.SetTooltip(v.Tooltip)
	systray.ResetMenu()
	head := systray.AddMenuItem(v.Tooltip, "")
	head.Disable()
	systray.AddSeparator()
	if len(v.Sandboxes) == 0 {
		systray.AddMenuItem("No sandbox running", "").Disable()
	}
	for _, s := range v.Sandboxes {
		u.sandbox(s)
	}
	if len(v.Questions) > 0 {
		systray.AddSeparator()
		systray.AddMenuItem("Questions waiting (click to answer):", "").Disable()
		for _, q := range v.Questions {
			id := q.ID
			u.on(systray.AddMenuItem("? "+q.Label, "Show this question's dialog"), func() { u.a.showQuestion(id) })
		}
	}
	systray.AddSeparator()
	pa := systray.AddMenuItem("Pause all", "Freeze every running sandbox")
	u.on(pa, func() { u.a.pauseAll(true) })
	if !v.CanPauseAll {
		pa.Disable()
	}
	if v.CanResumeAll {
		u.on(systray.AddMenuItem("Resume all", "Thaw every paused sandbox"), func() { u.a.pauseAll(false) })
	}
	u.on(systray.AddMenuItem("Open log", "The proxy's log of every sandbox"), func() { u.a.showLog("") })
	u.on(systray.AddMenuItem("Settings folder", "lnk's settings"), u.a.openSettings)
	systray.AddSeparator()
	u.on(systray.AddMenuItem("Quit", "Stop lnk's daemon (and every sandbox with it)"), u.a.tryQuit)
}

// sandbox adds one sandbox's submenu.
func (u *menu) sandbox(s sandboxView) {
	id := s.ID
	top := systray.AddMenuItem(s.Label, "")
	for _, line := range s.Info {
		top.AddSubMenuItem(line, "").Disable()
	}
	top.AddSeparator()
	u.on(top.AddSubMenuItem("Stop", "Cut its network and end its processes"), func() { u.a.stop(id) })
	switch s.State {
	case "running":
		u.on(top.AddSubMenuItem("Pause", "Freeze its processes and hold its connections"), func() { u.a.pause(id, true) })
	case "paused":
		u.on(top.AddSubMenuItem("Resume", "Thaw its processes"), func() { u.a.pause(id, false) })
	}
	u.on(top.AddSubMenuItem("Show log", "Its connections, allowed and refused"), func() { u.a.showLog(id) })
}

// on runs fn for every click of item, until the item is removed.
func (u *menu) on(item *systray.MenuItem, fn func()) {
	ch := item.ClickedCh
	go func() {
		for range ch {
			go fn()
		}
	}()
}

func setIcon(v view) {
	switch runtime.GOOS {
	case "windows":
		systray.SetIcon(assets.TrayIcon(v.State, assets.FormatICO))
	case "darwin":
		systray.SetTemplateIcon(assets.TrayIcon(v.State, assets.FormatTemplate), assets.TrayIcon(v.State, assets.FormatPNG))
	default:
		systray.SetIcon(assets.TrayIcon(v.State, assets.FormatPNG))
	}
}
