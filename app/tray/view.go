package tray

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/assets"
	"lnk.dev/sandbox/dialogs"
)

// view is what the tray shows at one moment: computed from the registry
// and the waiting questions by [makeView], a pure function, so the menu's
// text is tested without a tray.
type view struct {
	State     assets.TrayState
	Tooltip   string
	Sandboxes []sandboxView
	Questions []questionView
	// CanPauseAll and CanResumeAll say whether any sandbox runs, or is
	// paused.
	CanPauseAll, CanResumeAll bool
	// Live counts the sandboxes that Quit would stop.
	Live int
}

// sandboxView is one sandbox's submenu.
type sandboxView struct {
	ID    string
	Label string   // "name — running 3m"
	Info  []string // command, folder, uptime, last blocked host
	State string
}

// questionView is one waiting question's entry.
type questionView struct {
	ID    string
	Label string
}

// Lengths of the menu's text: long commands and folders are elided in
// the middle.
const (
	maxLabel = 60
	maxInfo  = 90
)

// makeView computes the view of sandboxes and the waiting questions at
// now. Finished sandboxes are left out: the menu lists what runs.
func makeView(sbs []apitype.Sandbox, qs []dialogs.Pending, now time.Time) view {
	var v view
	running, paused := 0, 0
	for _, sb := range sbs {
		switch sb.State {
		case apitype.StateRunning:
			running++
			v.CanPauseAll = true
		case apitype.StatePaused:
			paused++
			v.CanResumeAll = true
		case apitype.StateStarting:
		default:
			continue
		}
		v.Sandboxes = append(v.Sandboxes, sandboxEntry(sb, now))
	}
	v.Live = len(v.Sandboxes)
	for _, q := range qs {
		v.Questions = append(v.Questions, questionView{ID: q.ID, Label: questionLabel(&q.Question)})
	}
	switch {
	case len(qs) > 0:
		v.State = assets.TrayQuestion
	case paused > 0:
		v.State = assets.TrayPaused
	case running > 0 || v.Live > 0:
		v.State = assets.TrayRunning
	default:
		v.State = assets.TrayIdle
	}
	v.Tooltip = tooltip(running, paused, v.Live-running-paused, len(qs))
	return v
}

// tooltip is "lnk sandbox: 2 running, 1 question".
func tooltip(running, paused, starting, questions int) string {
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(running, "running", "running")
	add(paused, "paused", "paused")
	add(starting, "starting", "starting")
	add(questions, "question", "questions")
	if len(parts) == 0 {
		return "lnk sandbox: no sandbox running"
	}
	return "lnk sandbox: " + strings.Join(parts, ", ")
}

func sandboxEntry(sb apitype.Sandbox, now time.Time) sandboxView {
	up := ""
	if !sb.Started.IsZero() {
		up = " " + uptime(now.Sub(sb.Started))
	}
	e := sandboxView{
		ID:    sb.ID,
		State: sb.State,
		Label: dialogs.Elide(sb.Name, maxLabel/2) + " — " + sb.State + up,
	}
	e.Info = append(e.Info,
		"command: "+dialogs.Elide(strings.Join(sb.Argv, " "), maxInfo),
		"folder: "+dialogs.Elide(sb.Folder, maxInfo),
		"id: "+sb.ID+", spec: "+dialogs.Elide(filepath.Base(sb.Spec), 40))
	if up != "" {
		e.Info = append(e.Info, "up"+up)
	}
	if sb.LastBlocked != "" {
		e.Info = append(e.Info, "last blocked: "+dialogs.Elide(sb.LastBlocked, 60)+" ("+uptime(now.Sub(sb.LastBlockedAt))+" ago)")
	} else {
		e.Info = append(e.Info, "last blocked: none")
	}
	return e
}

// uptime is a duration as the menu shows it: <1m, 3m, 2h05m, 3d4h.
func uptime(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return "<1m" // finer would rebuild the menu while it is read
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

// questionLabel is a question's menu entry: who asks what. A URL's query
// is left out (it may hold a secret); the dialog shows it whole.
func questionLabel(q *dialogs.Question) string {
	who := q.Sandbox.Name
	if who == "" {
		who = q.Sandbox.ID
	}
	s := who + ": " + q.Action
	if q.Subject != "" {
		s += ": " + withoutQuery(q.Subject)
	}
	return dialogs.Elide(s, maxInfo)
}

// withoutQuery drops the query and fragment of a URL (they may carry a
// token), and leaves anything else as it is.
func withoutQuery(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		if i := strings.IndexAny(s, "?#"); i >= 0 && strings.Contains(s, "://") {
			return s[:i] + "?..."
		}
		return s
	}
	cut := u.RawQuery != "" || u.Fragment != "" || u.User != nil
	u.RawQuery, u.Fragment, u.ForceQuery, u.User = "", "", false, nil
	if cut {
		return u.String() + "?..."
	}
	return u.String()
}
