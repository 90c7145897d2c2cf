package daemon

import (
	"os"
	"path/filepath"
	"runtime"

	"lnk.dev/sandbox/assets"
	"lnk.dev/sandbox/bridges"
	"lnk.dev/sandbox/bridges/asks"
	"lnk.dev/sandbox/bridges/oauth"
	"lnk.dev/sandbox/bridges/open"
	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
	"lnk.dev/sandbox/spec"
)

// newAsker sets up the daemon's one Asker: native dialogs when a screen
// is there, the remembered answers in the state folder, and every
// question and answer in the log.
func (d *Daemon) newAsker() (*dialogs.Asker, error) {
	icon := filepath.Join(d.cfg.Paths.Runtime, "lnk-icon.png")
	if err := os.WriteFile(icon, assets.AppIcon(), 0o600); err != nil {
		icon = ""
	}
	dlg := d.cfg.Dialog
	if dlg == nil {
		dlg = &dialogs.Zenity{IconFile: icon}
	}
	return dialogs.New(dialogs.Config{
		Dialog:       dlg,
		Timeout:      d.cfg.AskTimeout,
		RememberFile: filepath.Join(d.cfg.Paths.State, "remembered.json"),
		Record:       d.recordAsk,
	})
}

// recordAsk writes a question or its answer to the log.
func (d *Daemon) recordAsk(e dialogs.Event) {
	q := e.Question
	r := proxy.Record{
		Time: q.Asked, Sandbox: q.Sandbox.ID, Proto: proxy.ProtoAsk,
		Host:     dialogs.Elide(q.Subject, 200),
		Decision: proxy.Ask,
		Rule:     q.Bridge + ": " + dialogs.Elide(q.Action, 120) + " (question " + q.ID + ")",
	}
	if a := e.Answer; a != nil {
		r.Time = q.Asked.Add(e.Duration)
		r.Decision = proxy.Deny
		if a.Allowed() {
			r.Decision = proxy.Allow
		}
		r.Rule = q.Bridge + ": " + string(a.Choice) + " via " + a.Via + " (question " + q.ID + ")"
		r.Error = a.Reason
		r.Duration = e.Duration.Milliseconds()
	}
	d.log.Write(r)
}

// bridgeList is every bridge the daemon serves, wired here explicitly.
func (d *Daemon) bridgeList() []bridges.Bridge {
	return []bridges.Bridge{
		&asks.Bridge{Asker: d.asker},
		&open.Bridge{Asker: d.asker, Open: d.cfg.OpenURL, Relays: &oauth.Relays{Wait: d.cfg.CallbackWait}},
		d.toolsBridge(),
	}
}

// registerBridges adds every bridge's routes to sb's proxy.
func (d *Daemon) registerBridges(sb *sandbox, pol *spec.Policy) {
	who := dialogs.Sandbox{
		ID: sb.info.ID, Name: sb.info.Name, Command: sb.info.Argv, Folder: pol.Folder,
		Scope: scopeOf(pol.Source, pol.Folder),
	}
	bs := &bridges.Sandbox{
		Who: who, Policy: pol, Proxy: sb.proxy, Done: sb.done,
		Log: func(r proxy.Record) {
			r.Sandbox = sb.info.ID
			d.log.Write(r)
		},
	}
	if runtime.GOOS == "linux" {
		bs.DialInside = d.dialInside(sb) // the sandbox's loopback is its own
	}
	for _, b := range d.bridges {
		b.Register(bs)
	}
}
