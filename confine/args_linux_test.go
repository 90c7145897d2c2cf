package confine

import (
	"strings"
	"testing"
)

func FuzzParseGuardArgs(f *testing.F) {
	f.Add("--create\x00f:/a/b\x00--new-repo\x00/a/.git\x00--\x00bwrap")
	f.Add("--keep-session\x00--need\x00/x\x00--")
	f.Fuzz(func(t *testing.T, joined string) {
		o, err := parseGuardArgs(strings.Split(joined, "\x00"))
		if err != nil {
			return
		}
		if len(o.argv) == 0 {
			t.Fatal("accepted no command")
		}
		for _, c := range o.create {
			if !strings.HasPrefix(c.path, "/") {
				t.Fatalf("accepted a relative placeholder %q", c.path)
			}
		}
	})
}

func FuzzParseInitArgs(f *testing.F) {
	f.Add("--x\x00/usr\x00--w\x00/w\x00--\x00sh")
	f.Fuzz(func(t *testing.T, joined string) {
		o, err := parseInitArgs(strings.Split(joined, "\x00"))
		if err == nil && len(o.argv) == 0 {
			t.Fatal("accepted no command")
		}
	})
}
