package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"lnk.dev/sandbox/app/apitype"
)

func TestPrintList(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	code := 3
	var b bytes.Buffer
	printList(&b, []apitype.Sandbox{
		{ID: "aaa", Name: "sh", State: apitype.StateRunning, Started: now.Add(-90 * time.Second), Folder: "/p", Argv: []string{"sh", "-c", "x\x1b[2J"}, LastBlocked: "evil.com:443"},
		{ID: "bbb", Name: "make", State: apitype.StateExited, ExitCode: &code, Folder: "/q", Argv: []string{"make"}},
	}, now)
	out := b.String()
	for _, want := range []string{"ID", "aaa", "running", "1m30s", "evil.com:443", "bbb", "exited (3)"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Error("list passed a terminal escape through")
	}
}

func TestLogLine(t *testing.T) {
	r := &apitype.LogRecord{Time: time.Now(), Sandbox: "aaa", Host: "::1", Port: 80, Decision: "deny", Rule: "address is loopback", Error: "x\ny"}
	l := logLine(r)
	if !strings.Contains(l, "[::1]:80") || !strings.Contains(l, "deny") || strings.Count(l, "\n") != 1 {
		t.Errorf("log line %q", l)
	}
}
