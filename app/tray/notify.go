package tray

import (
	"fmt"
	"sync"
	"time"

	"github.com/gen2brain/beeep"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/assets"
	"lnk.dev/sandbox/dialogs"
)

// DefaultBlockedEvery is how often one sandbox may notify a refusal of
// one host: a command retrying in a loop notifies once a minute.
const DefaultBlockedEvery = time.Minute

// notifier sends the tray's desktop notifications: a connection
// blocked, a question waiting on the queue, a sandbox stopped or exited
// with an error. It never shows a secret: hosts, never URLs with their
// queries, and no environment.
type notifier struct {
	send  func(title, body string) error
	every time.Duration
	logf  func(string, ...any)

	mu       sync.Mutex
	blocked  map[string]time.Time // sandbox id + host: last notified
	finished map[string]bool      // sandbox ids already notified
	asked    map[string]bool      // question ids already notified
	failed   bool                 // a send failed (logged once)
}

func newNotifier(send func(title, body string) error, every time.Duration, logf func(string, ...any)) *notifier {
	if send == nil {
		beeep.AppName = "lnk sandbox"
		icon := assets.AppIcon()
		send = func(title, body string) error { return beeep.Notify(title, body, icon) }
	}
	if every <= 0 {
		every = DefaultBlockedEvery
	}
	return &notifier{send: send, every: every, logf: logf,
		blocked: map[string]time.Time{}, finished: map[string]bool{}, asked: map[string]bool{}}
}

// event notifies what a registry change calls for.
func (n *notifier) event(e apitype.Event, now time.Time) {
	sb := e.Sandbox
	name := dialogs.Elide(sb.Name, 40)
	switch {
	case e.Kind == apitype.EventBlocked:
		key := sb.ID + " " + e.Host
		n.mu.Lock()
		last, seen := n.blocked[key]
		ok := !seen || now.Sub(last) >= n.every
		if ok {
			n.blocked[key] = now
		}
		n.pruneLocked(now)
		n.mu.Unlock()
		if ok {
			n.notify("lnk sandbox: connection blocked",
				fmt.Sprintf("%s (%s) may not reach %s. Allow it in the spec's [network] hosts if it should.", name, sb.ID, dialogs.Elide(e.Host, 80)))
		}
	case e.Forgotten:
		n.mu.Lock()
		delete(n.finished, sb.ID)
		n.mu.Unlock()
	case e.Kind == apitype.EventChanged:
		var body string
		switch {
		case sb.State == apitype.StateStopped:
			body = fmt.Sprintf("%s (%s) was stopped: its network was cut and its processes ended.", name, sb.ID)
		case sb.State == apitype.StateExited && sb.ExitCode != nil && *sb.ExitCode != 0:
			body = fmt.Sprintf("%s (%s) exited with code %d.", name, sb.ID, *sb.ExitCode)
		default:
			return
		}
		n.mu.Lock()
		ok := !n.finished[sb.ID]
		n.finished[sb.ID] = true
		n.mu.Unlock()
		if ok {
			n.notify("lnk sandbox: "+name+" ended", body)
		}
	}
}

// question notifies a question that waits on the queue (one shown in a
// dialog or on a terminal is seen already).
func (n *notifier) question(p *dialogs.Pending) {
	if p.Via != dialogs.ViaQueue {
		return
	}
	n.mu.Lock()
	ok := !n.asked[p.ID]
	n.asked[p.ID] = true
	n.mu.Unlock()
	if ok {
		n.notify("lnk sandbox: a question waits", questionLabel(&p.Question)+
			"\nAnswer it from the tray's menu or with 'lnk sandbox answer'.")
	}
}

// gone forgets a question once it is answered.
func (n *notifier) gone(id string) {
	n.mu.Lock()
	delete(n.asked, id)
	n.mu.Unlock()
}

// pruneLocked drops rate limit entries older than the window, so a long
// run with many hosts does not grow the map without end.
func (n *notifier) pruneLocked(now time.Time) {
	if len(n.blocked) < 1024 {
		return
	}
	for k, t := range n.blocked {
		if now.Sub(t) >= n.every {
			delete(n.blocked, k)
		}
	}
}

func (n *notifier) notify(title, body string) {
	if err := n.send(title, body); err != nil {
		n.mu.Lock()
		first := !n.failed
		n.failed = true
		n.mu.Unlock()
		if first && n.logf != nil {
			n.logf("tray: cannot send a notification (no notification service on the session bus?): %v", err)
		}
	}
}
