package confine

import (
	"strings"
	"testing"
)

func TestHostEnviron(t *testing.T) {
	p, _ := fixturePolicy(t, "default")
	r := &Request{Policy: p, Argv: []string{"x"}, SandboxID: "sbx1", Secret: "s3cret", LnkPath: "/Applications/lnk's/lnk",
		ProxySocket: "/run/p.sock", ProxyPort: 4321,
		Env: []string{"PATH=/usr/bin", "HTTP_PROXY=http://evil", "https_proxy=http://evil", "TMPDIR=/var/x", "Temp=C:\\x", "GIT_CONFIG_KEY_3=core.hooksPath"}}
	for _, goos := range []string{"darwin", "windows"} {
		env := strings.Join(r.HostEnviron(goos, "/tmp/lnk-1"), "\n")
		for _, gone := range []string{"evil", "/var/x", `C:\x`, "core.hooksPath"} {
			if strings.Contains(env, gone) {
				t.Errorf("%s: the caller's %q is still there:\n%s", goos, gone, env)
			}
		}
		for _, want := range []string{"PATH=/usr/bin", "HTTP_PROXY=http://sbx1:s3cret@127.0.0.1:4321", "NO_PROXY=localhost,127.0.0.1,::1",
			"LNK_SANDBOX=sbx1", `GIT_SSH_COMMAND=ssh -o ProxyCommand='/Applications/lnk'\''s/lnk sandbox connect %h %p'`} {
			if !strings.Contains(env, want) {
				t.Errorf("%s: no %q in\n%s", goos, want, env)
			}
		}
		tmp := "TMPDIR=/tmp/lnk-1"
		if goos == "windows" {
			tmp = "TMP=/tmp/lnk-1\nTEMP=/tmp/lnk-1"
		}
		if !strings.Contains(env, tmp) {
			t.Errorf("%s: temp not set (%q):\n%s", goos, tmp, env)
		}
	}
}

func TestSeatbeltAndWindowsArgv(t *testing.T) {
	p, _ := fixturePolicy(t, "default")
	r := &Request{Policy: p, Argv: []string{"make", "-j2"}, SandboxID: "sbx1", Secret: "s", LnkPath: "/bin/lnk", ProxySocket: "/run/p.sock", ProxyPort: 4321}
	got := strings.Join(SeatbeltArgv(r, "(version 1)", "/tmp/t"), " ")
	want := "/usr/bin/sandbox-exec -p (version 1) -- /bin/lnk sandbox init --seatbelt --port 4321 --socket /run/p.sock --tmp /tmp/t -- make -j2"
	if got != want {
		t.Errorf("seatbelt argv:\n%s\nwant\n%s", got, want)
	}
	got = strings.Join(WindowsRunArgv(r, `C:\t`), " ")
	want = "/bin/lnk sandbox windows-acl-run --workspace " + p.Folder + ` --temp C:\t --mode workspace-write -- make -j2`
	if got != want {
		t.Errorf("windows argv:\n%s\nwant\n%s", got, want)
	}
	ro := *p
	ro.Writable = nil
	r.Policy = &ro
	if got := strings.Join(WindowsRunArgv(r, `C:\t`), " "); !strings.Contains(got, "--mode read-only --") {
		t.Errorf("a folder the spec does not write: %s", got)
	}
}

// TestParseSeatbeltInit: init reads back what SeatbeltArgv writes, and
// refuses anything else.
func TestParseSeatbeltInit(t *testing.T) {
	p, _ := fixturePolicy(t, "default")
	r := &Request{Policy: p, Argv: []string{"sh", "-c", "x -- y"}, SandboxID: "s", Secret: "s", LnkPath: "/bin/lnk", ProxySocket: "/run/p.sock", ProxyPort: 4321}
	argv := SeatbeltArgv(r, "(version 1)", "/tmp/t")
	port, socket, tmp, cmd, err := parseSeatbeltInit(argv[8:]) // after "lnk sandbox init --seatbelt"
	if err != nil || port != 4321 || socket != "/run/p.sock" || tmp != "/tmp/t" || strings.Join(cmd, " ") != "sh -c x -- y" {
		t.Fatalf("got %d %q %q %q %v", port, socket, tmp, cmd, err)
	}
	for _, bad := range [][]string{
		{"--port", "0", "--socket", "s", "--tmp", "t", "--", "x"},
		{"--port", "x", "--socket", "s", "--tmp", "t", "--", "x"},
		{"--port", "1", "--tmp", "t", "--", "x"},
		{"--port", "1", "--socket", "s", "--", "x"},
		{"--port", "1", "--socket", "s", "--tmp", "t", "--"},
		{"--port", "1", "--socket", "s", "--tmp", "t", "--evil", "--", "x"},
		{"--port"},
	} {
		if _, _, _, _, err := parseSeatbeltInit(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}
