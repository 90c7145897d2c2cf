package tray

import (
	"strings"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/assets"
	"lnk.dev/sandbox/dialogs"
)

func TestMakeView(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	code1 := 1
	sb := func(id, state string, up time.Duration) apitype.Sandbox {
		s := apitype.Sandbox{ID: id, Name: "n" + id, State: state, Argv: []string{"make", "test"}, Folder: "/home/me/p", Spec: "/home/me/work.toml"}
		if state != apitype.StateStarting {
			s.Started = now.Add(-up)
		}
		return s
	}
	q := dialogs.Pending{Question: dialogs.Question{ID: "q1", Sandbox: dialogs.Sandbox{ID: "a", Name: "na"},
		Action: "wants to open a page", Subject: "https://login.example/cb?code=SECRET#frag"}, Via: dialogs.ViaQueue}
	exited := sb("x", apitype.StateExited, time.Hour)
	exited.ExitCode = &code1
	tests := []struct {
		name    string
		sbs     []apitype.Sandbox
		qs      []dialogs.Pending
		state   assets.TrayState
		tooltip string
		entries int
	}{
		{"idle", nil, nil, assets.TrayIdle, "lnk sandbox: no sandbox running", 0},
		{"finished are left out", []apitype.Sandbox{exited, sb("s", apitype.StateStopped, 0)}, nil, assets.TrayIdle, "lnk sandbox: no sandbox running", 0},
		{"running", []apitype.Sandbox{sb("a", apitype.StateRunning, 3*time.Minute), sb("b", apitype.StateRunning, time.Second)}, nil,
			assets.TrayRunning, "lnk sandbox: 2 running", 2},
		{"starting", []apitype.Sandbox{sb("a", apitype.StateStarting, 0)}, nil, assets.TrayRunning, "lnk sandbox: 1 starting", 1},
		{"paused", []apitype.Sandbox{sb("a", apitype.StateRunning, 0), sb("b", apitype.StatePaused, 0)}, nil,
			assets.TrayPaused, "lnk sandbox: 1 running, 1 paused", 2},
		{"question", []apitype.Sandbox{sb("a", apitype.StateRunning, 0), sb("b", apitype.StateRunning, 0)}, []dialogs.Pending{q},
			assets.TrayQuestion, "lnk sandbox: 2 running, 1 question", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := makeView(tt.sbs, tt.qs, now)
			if v.State != tt.state || v.Tooltip != tt.tooltip || len(v.Sandboxes) != tt.entries || v.Live != tt.entries {
				t.Errorf("got state %v, tooltip %q, %d entries (live %d)", v.State, v.Tooltip, len(v.Sandboxes), v.Live)
			}
		})
	}
	v := makeView([]apitype.Sandbox{sb("a", apitype.StateRunning, 2*time.Hour+5*time.Minute)}, []dialogs.Pending{q}, now)
	e := v.Sandboxes[0]
	if e.Label != "na — running 2h05m" {
		t.Errorf("label %q", e.Label)
	}
	want := []string{"command: make test", "folder: /home/me/p", "id: a, spec: work.toml", "up 2h05m", "last blocked: none"}
	if strings.Join(e.Info, "|") != strings.Join(want, "|") {
		t.Errorf("info %q", e.Info)
	}
	if l := v.Questions[0].Label; l != "na: wants to open a page: https://login.example/cb?..." {
		t.Errorf("question label %q", l)
	}
	if !v.CanPauseAll || v.CanResumeAll {
		t.Errorf("pause all %v, resume all %v", v.CanPauseAll, v.CanResumeAll)
	}
}

func TestLabelsAreCleanAndShort(t *testing.T) {
	s := apitype.Sandbox{ID: "a", State: apitype.StateRunning, Name: "evil\u202e\nname",
		Argv: []string{"sh", "-c", strings.Repeat("x", 500)}, LastBlocked: "h\x1b[31m:1"}
	e := makeView([]apitype.Sandbox{s}, nil, time.Now()).Sandboxes[0]
	for _, l := range append([]string{e.Label}, e.Info...) {
		if strings.ContainsAny(l, "\n\x1b\u202e") || len(l) > 140 {
			t.Errorf("unsafe or long menu text %q", l)
		}
	}
}

func TestWithoutQuery(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.example/p?token=x":    "https://a.example/p?...",
		"https://u:pw@a.example/p":       "https://a.example/p?...",
		"https://a.example/p#access=tok": "https://a.example/p?...",
		"https://a.example/p":            "https://a.example/p",
		"fs write_file":                  "fs write_file",
		"not a url ? really":             "not a url ? really",
		"x://%zz?secret":                 "x://%zz?...",
	} {
		if got := withoutQuery(in); got != want {
			t.Errorf("withoutQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUptime(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second: "0s", 20 * time.Second: "<1m", 3 * time.Minute: "3m",
		61 * time.Minute: "1h01m", 50 * time.Hour: "2d2h",
	} {
		if got := uptime(d); got != want {
			t.Errorf("uptime(%v) = %q, want %q", d, got, want)
		}
	}
}
