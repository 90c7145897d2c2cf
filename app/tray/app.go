package tray

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/dialogs"
)

// Options set up the tray. Zero fields take the defaults.
type Options struct {
	// Paths are lnk's folders: the log, and where the readable log views
	// the menu opens are written (the runtime folder).
	Paths apitype.Paths
	// SettingsDir is the folder "Settings folder" opens (lnk's config
	// folder).
	SettingsDir string
	// Logf logs the tray's own events (the daemon's log).
	Logf func(format string, args ...any)
	// Notify sends a desktop notification; nil is beeep's (D-Bus
	// org.freedesktop.Notifications on Linux).
	Notify func(title, body string) error
	// BlockedEvery is how often one sandbox may notify a refusal of one
	// host (DefaultBlockedEvery).
	BlockedEvery time.Duration
	// Open opens a file or folder with the desktop's program for it; nil
	// is xdg-open, open or explorer.
	Open func(path string) error
	// Confirm asks the person a yes/no question (Quit's); nil is a
	// zenity dialog. It returns false if it cannot ask.
	Confirm func(title, text, yes, no string) bool
}

// app is the tray's logic, apart from the menu library: it follows the
// Model, computes views, sends notifications and carries out the menu's
// actions.
type app struct {
	m    Model
	o    Options
	note *notifier
	quit func() // ends the tray

	poke     chan struct{} // buffered 1: something changed
	quitting atomic.Bool   // Quit's question is on the screen

	mu     sync.Mutex
	events []apitype.Event // registry changes not yet notified
	last   view
}

func newApp(m Model, o Options, quit func()) *app {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Open == nil {
		o.Open = openPath
	}
	if o.Confirm == nil {
		o.Confirm = confirm
	}
	return &app{m: m, o: o, quit: quit, poke: make(chan struct{}, 1),
		note: newNotifier(o.Notify, o.BlockedEvery, o.Logf)}
}

// refreshEvery redraws the menu for its uptimes (in minutes).
const refreshEvery = 20 * time.Second

// follow runs until ctx ends: it watches the registry and the questions,
// notifies, and calls render with each new view.
func (a *app) follow(ctx context.Context, render func(view)) {
	cancel := a.m.Subscribe(func(e apitype.Event) {
		a.mu.Lock()
		if len(a.events) < 4096 { // a flood is dropped, not queued without end
			a.events = append(a.events, e)
		}
		a.mu.Unlock()
		a.wake()
	})
	defer cancel()
	go a.watchQuestions(ctx)
	tick := time.NewTicker(refreshEvery)
	defer tick.Stop()
	first := true
	for ctx.Err() == nil { // once the daemon stops, its sandboxes' ends are not news
		a.mu.Lock()
		evs := a.events
		a.events = nil
		a.mu.Unlock()
		now := time.Now()
		for _, e := range evs {
			a.note.event(e, now)
		}
		v := makeView(a.m.List(ctx), a.m.Asker().PendingViews(), now)
		a.mu.Lock()
		changed := first || !reflect.DeepEqual(v, a.last)
		a.last = v
		a.mu.Unlock()
		if changed && render != nil {
			render(v)
		}
		first = false
		select {
		case <-ctx.Done():
			return
		case <-a.poke:
		case <-tick.C:
		}
	}
}

func (a *app) wake() {
	select {
	case a.poke <- struct{}{}:
	default:
	}
}

// watchQuestions follows the Asker's queue: while it is attached,
// questions wait for the person instead of being refused.
func (a *app) watchQuestions(ctx context.Context) {
	for ctx.Err() == nil {
		w := a.m.Asker().Watch()
		stop := context.AfterFunc(ctx, w.Close)
		for e := range w.Events() {
			if e.Question != nil {
				a.note.question(e.Question)
			} else {
				a.note.gone(e.Gone)
			}
			a.wake()
		}
		stop()
		w.Close()
		if !w.Lost() {
			return
		}
		a.o.Logf("tray: fell behind the questions; watching them afresh")
	}
}

// view returns the last view computed.
func (a *app) view() view {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// actionTimeout bounds one menu action (Stop waits for the processes).
const actionTimeout = 30 * time.Second

func (a *app) stop(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), actionTimeout)
	defer cancel()
	if _, err := a.m.Stop(ctx, &apitype.IDRequest{ID: id}); err != nil {
		a.fail("stop "+id, err)
	}
}

func (a *app) pause(id string, pause bool) {
	ctx, cancel := context.WithTimeout(context.Background(), actionTimeout)
	defer cancel()
	var err error
	if pause {
		err = a.m.Pause(ctx, id)
	} else {
		err = a.m.Resume(ctx, id)
	}
	if err != nil {
		a.fail("pause/resume "+id, err)
	}
}

// pauseAll pauses every running sandbox (resume false) or resumes every
// paused one.
func (a *app) pauseAll(pause bool) {
	from := apitype.StatePaused
	if pause {
		from = apitype.StateRunning
	}
	for _, sb := range a.m.List(context.Background()) {
		if sb.State == from {
			a.pause(sb.ID, pause)
		}
	}
}

// showLog writes the readable log of one sandbox (all when id is "") to
// a file in lnk's runtime folder and opens it.
func (a *app) showLog(id string) {
	if err := a.writeAndOpenLog(id); err != nil {
		a.fail("show the log", err)
	}
}

// maxLogView bounds the records a log view holds: the newest are kept.
const maxLogView = 5000

func (a *app) writeAndOpenLog(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), actionTimeout)
	defer cancel()
	var lines []string
	err := a.m.Log(ctx, id, false, func(r *apitype.LogRecord) error {
		lines = append(lines, logLine(r))
		if len(lines) > 2*maxLogView {
			lines = append(lines[:0], lines[len(lines)-maxLogView:]...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(lines) > maxLogView {
		lines = lines[len(lines)-maxLogView:]
	}
	dir := filepath.Join(a.o.Paths.Runtime, "views")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	name, head := "log-all.txt", "lnk sandbox: the proxy's log of every sandbox"
	if id != "" {
		name, head = "log-"+id+".txt", "lnk sandbox: the proxy's log of sandbox "+id
	}
	head += fmt.Sprintf(" (newest %d records; the whole log is in %s; follow it with 'lnk sandbox log --follow')\n\n", maxLogView, a.o.Paths.LogDir())
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(head+strings.Join(lines, "")), 0o600); err != nil {
		return err
	}
	return a.o.Open(path)
}

// logLine is one record as `lnk sandbox log` prints it.
func logLine(r *apitype.LogRecord) string {
	target := r.Host
	if r.Port != 0 {
		target = fmt.Sprintf("%s:%d", r.Host, r.Port)
	}
	s := fmt.Sprintf("%s  %s  %-5s  %s  %s", r.Time.Local().Format(time.DateTime), r.Sandbox, r.Decision,
		dialogs.Clean(target), dialogs.Clean(r.Rule))
	if r.Error != "" {
		s += "  (" + dialogs.Clean(r.Error) + ")"
	}
	return s + "\n"
}

func (a *app) openSettings() {
	if err := os.MkdirAll(a.o.SettingsDir, 0o700); err != nil {
		a.fail("open the settings folder", err)
		return
	}
	if err := a.o.Open(a.o.SettingsDir); err != nil {
		a.fail("open the settings folder", err)
	}
}

// showQuestion shows a waiting question in its dialog.
func (a *app) showQuestion(id string) {
	if err := a.m.Asker().ShowDialog(id); err != nil {
		if errors.Is(err, dialogs.ErrNoQuestion) || errors.Is(err, dialogs.ErrShown) {
			return // answered meanwhile, or its dialog is up or next in line
		}
		a.fail("show question "+id, fmt.Errorf("%w; answer it with 'lnk sandbox answer %s allow|deny'", err, id))
	}
}

// tryQuit ends the tray and the daemon, asking first when sandboxes run.
func (a *app) tryQuit() {
	if !a.quitting.CompareAndSwap(false, true) {
		return // its question is on the screen already
	}
	defer a.quitting.Store(false)
	v := a.view()
	if v.Live > 0 {
		names := make([]string, 0, len(v.Sandboxes))
		for _, s := range v.Sandboxes {
			names = append(names, s.Label)
		}
		text := fmt.Sprintf("%d sandboxes are running:\n\n%s\n\nQuitting stops lnk's daemon: their network is cut at once and their commands are ended (SIGTERM, then SIGKILL).",
			v.Live, strings.Join(names, "\n"))
		if v.Live == 1 {
			text = fmt.Sprintf("A sandbox is running:\n\n%s\n\nQuitting stops lnk's daemon: its network is cut at once and its command is ended (SIGTERM, then SIGKILL).",
				names[0])
		}
		if !a.o.Confirm("Quit lnk sandbox?", text, "_Quit and stop them", "_Keep running") {
			return
		}
	}
	a.o.Logf("tray: Quit chosen in the menu")
	a.quit()
}

// fail logs a failed action and tells the person.
func (a *app) fail(what string, err error) {
	a.o.Logf("tray: %s: %v", what, err)
	a.note.notify("lnk sandbox: cannot "+what, dialogs.Elide(err.Error(), 200))
}
