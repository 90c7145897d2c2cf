package daemon

import (
	"bufio"
	"strings"
	"testing"

	"lnk.dev/sandbox/app/apitype"
)

func FuzzSessionEvents(f *testing.F) {
	f.Add("{\"event\":\"start\",\"pid\":2}\n{\"event\":\"exit\",\"code\":3}\n")
	f.Add("{\"event\":\"exit\"}\n")
	f.Add("garbage\n{\"event\":\"start\"")
	f.Add(strings.Repeat("x", 5000) + "\n{\"event\":\"exit\",\"code\":1}\n")
	f.Fuzz(func(t *testing.T, in string) {
		d := &Daemon{cfg: Config{Logf: func(string, ...any) {}}, sandboxes: map[string]*sandbox{}}
		sb := &sandbox{info: apitype.Sandbox{ID: "x", State: apitype.StateStarting}}
		code := d.readEvents(sb, bufio.NewReader(strings.NewReader(in)))
		if s := sb.info.State; s != apitype.StateStarting && s != apitype.StateRunning {
			t.Fatalf("state %q from events", s)
		}
		if code != nil && !strings.Contains(in, "exit") {
			t.Fatalf("exit code %d without an exit event", *code)
		}
	})
}
