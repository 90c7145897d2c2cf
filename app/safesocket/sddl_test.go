package safesocket

import (
	"strings"
	"testing"
)

func TestPipeSDDL(t *testing.T) {
	const sid = "S-1-5-21-1004336348-1177238915-682003330-512"
	got, err := PipeSDDL(sid)
	if err != nil {
		t.Fatal(err)
	}
	if want := "O:" + sid + "D:P(A;;GA;;;" + sid + ")"; got != want {
		t.Errorf("PipeSDDL = %q, want %q", got, want)
	}
	// Nobody but the user: no world, no authenticated users, no network.
	for _, bad := range []string{"WD", "AU", "NU", "BU", "IU"} {
		if strings.Contains(got, ";"+bad+")") {
			t.Errorf("PipeSDDL grants %s: %q", bad, got)
		}
	}
	for _, bad := range []string{"", "WD", "S-1-5-21-1)(A;;GA;;;WD", "S-1-1-0 ", "x"} {
		if _, err := PipeSDDL(bad); err == nil {
			t.Errorf("PipeSDDL(%q) accepted a bad SID", bad)
		}
	}
	if n := PipeName(sid); !strings.HasPrefix(n, `\\.\pipe\`) || !strings.HasSuffix(n, sid) {
		t.Errorf("PipeName = %q", n)
	}
}
