package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lnkCLI runs the CLI in-process with a fresh HOME.
func lnkCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"lnk"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestToolVerbs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("LNK_SANDBOX", "")
	code, _, errs := lnkCLI(t, "sandbox", "tool", "add", "docs", "--allow", "search,read", "--env", "A=1", "--env", "TOKEN=s3cret",
		"--", "lnk-sandbox", "sandbox", "mcp-remote", "https://mcp.example.com/mcp", "--header", "Authorization: Bearer s3cret")
	if code != 0 {
		t.Fatalf("add: %d %s", code, errs)
	}
	if code, _, errs := lnkCLI(t, "sandbox", "tool", "add", "docs", "--", "x"); code != ExitUsage || !strings.Contains(errs, "--replace") {
		t.Fatalf("a second add: %d %s", code, errs)
	}
	if code, _, errs := lnkCLI(t, "sandbox", "tool", "add", "team", "--shared", "--ask", "none", "--", "srv", "--flag"); code != 0 {
		t.Fatalf("add team: %d %s", code, errs)
	}
	fi, err := os.Stat(filepath.Join(home, ".config", "lnk", "tools.toml"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings file: %v %v", fi, err)
	}
	code, out, _ := lnkCLI(t, "sandbox", "tool", "list", "--json")
	var list []toolJSON
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 2 {
		t.Fatalf("list --json: %d %s", code, out)
	}
	if d := list[0]; d.Name != "docs" || d.Ask != "calls" || strings.Join(d.Allow, ",") != "search,read" || strings.Join(d.Env, ",") != "A,TOKEN" {
		t.Errorf("docs: %+v", d)
	}
	if tm := list[1]; tm.Name != "team" || tm.Ask != "none" || !tm.Shared || tm.Idle != "5m0s" {
		t.Errorf("team: %+v", tm)
	}
	_, text, _ := lnkCLI(t, "sandbox", "tool", "list")
	_, show, _ := lnkCLI(t, "sandbox", "tool", "show", "docs")
	for _, o := range []string{out, text, show} {
		if strings.Contains(o, "s3cret") {
			t.Fatalf("a secret was printed:\n%s", o)
		}
	}
	if !strings.Contains(show, "Authorization: <hidden>") || !strings.Contains(show, "--allow search,read") {
		t.Errorf("show:\n%s", show)
	}
	for _, bad := range [][]string{
		{"sandbox", "tool", "add", "Bad", "--", "x"},
		{"sandbox", "tool", "add", "ok", "x"},
		{"sandbox", "tool", "add", "ok", "--ask", "never", "--", "x"},
		{"sandbox", "tool", "add", "ok", "--env", "NOEQUALS", "--", "x"},
		{"sandbox", "tool", "add", "ok", "--allow", "a b", "--", "x"},
	} {
		if code, _, errs := lnkCLI(t, bad...); code != ExitUsage || errs == "" {
			t.Errorf("%v: %d %q", bad, code, errs)
		}
	}
	if code, _, errs := lnkCLI(t, "sandbox", "tool", "remove", "docs"); code != 0 {
		t.Fatalf("remove: %d %s", code, errs)
	}
	if code, _, _ := lnkCLI(t, "sandbox", "tool", "show", "docs"); code != ExitInvalid {
		t.Fatalf("show after remove: %d", code)
	}
	t.Setenv("LNK_SANDBOX", "abc")
	if code, _, errs := lnkCLI(t, "sandbox", "tool", "remove", "team"); code != ExitUsage || !strings.Contains(errs, "outside the sandbox") {
		t.Fatalf("remove inside a sandbox: %d %s", code, errs)
	}
}

func TestToolConnectNeedsTheProxy(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	t.Setenv("http_proxy", "")
	if code, _, errs := lnkCLI(t, "sandbox", "tool", "connect", "fs"); code != ExitFailure || !strings.Contains(errs, "inside an lnk sandbox") {
		t.Fatalf("%d %s", code, errs)
	}
}
