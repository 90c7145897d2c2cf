package confine

import (
	"errors"
	"strings"
	"testing"

	"lnk.dev/sandbox/build/testenv"
)

func TestCheckHere(t *testing.T) {
	testenv.NeedBwrap(t)
	if err := Check(); err != nil {
		t.Fatalf("the wall cannot stand here: %v", err)
	}
}

func TestWrapWithoutBwrap(t *testing.T) {
	b := newBox(t)
	r := b.request("true")
	r.BwrapPath = "/nonexistent/bwrap"
	_, err := Wrap(r)
	if err == nil || !strings.Contains(err.Error(), "install the bubblewrap package") {
		t.Fatalf("got %v", err)
	}
}

func TestExplainBwrap(t *testing.T) {
	err := explainBwrap("bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces", errors.New("exit status 1"))
	if readSysctl("kernel.apparmor_restrict_unprivileged_userns") == "1" {
		t.Skip("this machine restricts user namespaces through AppArmor")
	}
	if !strings.Contains(err.Error(), "user namespaces") || !strings.Contains(err.Error(), "sysctl") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("not a one-paragraph fix: %v", err)
	}
	err = explainBwrap("bwrap: something else", errors.New("exit status 1"))
	if !strings.Contains(err.Error(), "bubblewrap") {
		t.Fatalf("got %v", err)
	}
}
