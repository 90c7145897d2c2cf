package confine

import (
	"strings"
	"testing"
)

func TestWallRunsCommand(t *testing.T) {
	b := newBox(t)
	r := b.sh("echo hello; echo err >&2; exit 3")
	if r.code != 3 || r.stdout != "hello\n" || !strings.Contains(r.stderr, "err") {
		t.Fatalf("got %+v", r)
	}
}
