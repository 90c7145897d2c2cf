//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outsideDir is a folder outside the sandbox's reach for writes: beside
// the test's sources (the sandbox's /tmp is its own, so a folder under
// the host's /tmp would only swallow the copy, not refuse it).
func outsideDir(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(wd, "ssh-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	os.Chmod(d, 0o755)
	if strings.HasPrefix(d, "/tmp/") {
		t.Skipf("the sources are under /tmp (%s), which is the sandbox's own: no folder outside to refuse writes in", d)
	}
	return d
}

// sshCopy: scp (the SFTP protocol, and the old one with -O) writes into
// the folder, and cannot write outside it nor read the hidden key.
func sshCopy(t *testing.T, w *world, b *sshBox) {
	out := outsideDir(t)
	src := filepath.Join(b.dir, "payload.txt")
	if err := os.WriteFile(src, []byte("payload\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, proto := range []struct{ name, flag string }{{"sftp", "-s"}, {"legacy", "-O"}} {
		in := filepath.Join(w.folder, "scp-"+proto.name+".txt")
		if r := b.scp(proto.flag, src, b.host()+":"+in); r.code != 0 {
			t.Errorf("scp %s into the folder: exit %d: %s\nsshd: %s", proto.name, r.code, r.stderr, b.log)
		} else if data, _ := os.ReadFile(in); string(data) != "payload\n" {
			t.Errorf("scp %s into the folder wrote %q", proto.name, data)
		}
		outside := filepath.Join(out, "scp-"+proto.name+".txt")
		if r := b.scp(proto.flag, src, b.host()+":"+outside); r.code == 0 {
			t.Errorf("scp %s outside the folder succeeded", proto.name)
		}
		if _, err := os.Lstat(outside); err == nil {
			t.Errorf("scp %s wrote %s, outside the folder", proto.name, outside)
		}
		got := filepath.Join(b.dir, "stolen-"+proto.name)
		if r := b.scp(proto.flag, b.host()+":"+filepath.Join(w.home, ".ssh", "id_rsa"), got); r.code == 0 {
			t.Errorf("scp %s read the hidden key", proto.name)
		}
		if data, _ := os.ReadFile(got); strings.Contains(string(data), fakeKey) {
			t.Errorf("scp %s copied the hidden key out", proto.name)
		}
	}
}

// sshSftp: sftp, on sshd's internal-sftp and on the sftp-server program,
// writes into the folder only and cannot read the hidden key.
func sshSftp(t *testing.T, w *world, b *sshBox) {
	out := outsideDir(t)
	src := filepath.Join(b.dir, "payload.txt")
	if err := os.WriteFile(src, []byte("payload\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"sftp", "sftp-ext"} {
		in := filepath.Join(w.folder, sub+".txt")
		if r := b.sftp(sub, fmt.Sprintf("put %s %s\n", src, in)); r.code != 0 {
			t.Errorf("sftp (%s) put into the folder: exit %d: %s %s\nsshd: %s", sub, r.code, r.stdout, r.stderr, b.log)
		} else if data, _ := os.ReadFile(in); string(data) != "payload\n" {
			t.Errorf("sftp (%s) wrote %q", sub, data)
		}
		outside := filepath.Join(out, sub+".txt")
		if r := b.sftp(sub, fmt.Sprintf("put %s %s\n", src, outside)); r.code == 0 {
			t.Errorf("sftp (%s) put outside the folder succeeded", sub)
		}
		if _, err := os.Lstat(outside); err == nil {
			t.Errorf("sftp (%s) wrote %s, outside the folder", sub, outside)
		}
		got := filepath.Join(b.dir, "stolen-"+sub)
		if r := b.sftp(sub, fmt.Sprintf("get %s %s\n", filepath.Join(w.home, ".ssh", "id_rsa"), got)); r.code == 0 {
			t.Errorf("sftp (%s) read the hidden key", sub)
		}
		if data, _ := os.ReadFile(got); strings.Contains(string(data), fakeKey) {
			t.Errorf("sftp (%s) copied the hidden key out", sub)
		}
	}
}
