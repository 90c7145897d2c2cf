package tray

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/dialogs"
)

// printable reports whether s is printable ASCII, apart from the " — "
// the menu itself puts between a name and its state.
func printable(s string) bool {
	for _, c := range []byte(strings.ReplaceAll(s, " — ", " - ")) {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// FuzzMenuText: whatever a sandbox's name, command, folder, refused host
// or question holds, the menu's text is printable ASCII of bounded
// length, and a URL in a question loses its query, fragment and
// credentials.
func FuzzMenuText(f *testing.F) {
	f.Add("build", "make test", "/home/me/p", "x.example:443", "https://a.example/cb?code=SECRET#t")
	f.Add("evil\u202ename", "sh\n-c", "/tmp/\x1b[31m", "h\x00:1", "https://u:pw@a.example/?q")
	f.Add("", "", "", "", "fs write_file")
	f.Fuzz(func(t *testing.T, name, cmd, folder, blocked, subject string) {
		now := time.Now()
		sb := apitype.Sandbox{ID: "a", Name: name, Argv: strings.Fields(cmd), Folder: folder, State: apitype.StateRunning,
			Started: now, LastBlocked: blocked, LastBlockedAt: now, Spec: folder}
		q := dialogs.Pending{Question: dialogs.Question{ID: "q", Sandbox: dialogs.Sandbox{ID: "a", Name: name}, Action: cmd, Subject: subject}}
		v := makeView([]apitype.Sandbox{sb}, []dialogs.Pending{q}, now)
		texts := append([]string{v.Tooltip, v.Sandboxes[0].Label, v.Questions[0].Label}, v.Sandboxes[0].Info...)
		for _, s := range texts {
			if !printable(s) || len(s) > 200 {
				t.Fatalf("menu text %q", s)
			}
		}
		out := withoutQuery(subject)
		if u, err := url.Parse(subject); err == nil && u.Scheme != "" && u.Host != "" {
			back, err := url.Parse(strings.TrimSuffix(out, "?..."))
			if err != nil || back.RawQuery != "" || back.Fragment != "" || back.User != nil {
				t.Fatalf("withoutQuery(%q) = %q keeps a query, fragment or credentials", subject, out)
			}
		}
	})
}
