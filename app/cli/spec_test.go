package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lnk.dev/sandbox/spec"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestSpecVerbs(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "work.toml")
	if err := os.WriteFile(good, []byte("[filesystem]\nallow_write = [\".\"]\n[network]\nhosts = [\"*.example.com\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[network]\nhosts = [\"ok.example\", \"*.\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderr   string
		exactOut []byte
	}{
		{name: "schema", args: []string{"lnk", "sandbox", "spec", "--schema"}, exactOut: spec.SchemaJSON},
		{name: "keys", args: []string{"lnk", "sandbox", "spec", "--keys"}, exactOut: spec.KeysMarkdown},
		{name: "example", args: []string{"lnk", "sandbox", "spec", "--example"}, exactOut: spec.ExampleTOML},
		{name: "check good", args: []string{"lnk", "sandbox", "spec", "--check", good, "--folder", dir}, stdout: "*.example.com  (hosts[0])"},
		{name: "check bad", args: []string{"lnk", "sandbox", "spec", "--check", bad, "--folder", dir}, code: ExitInvalid,
			stderr: "bad.toml:2: network.hosts[1]: \"*.\" has no domain after the wildcard"},
		{name: "check missing folder", args: []string{"lnk", "sandbox", "spec", "--check", good, "--folder", filepath.Join(dir, "nope")},
			code: ExitInvalid, stderr: "does not exist"},
		{name: "two modes", args: []string{"lnk", "sandbox", "spec", "--keys", "--schema"}, code: ExitUsage, stderr: "exactly one"},
		{name: "permissions default", args: []string{"lnk", "sandbox", "permissions", "--folder", dir},
			stdout: "reads are NOT confined"},
		{name: "as lnk-sandbox", args: []string{"/usr/bin/lnk-sandbox", "sandbox", "permissions", "--spec", good, "--folder", dir},
			stdout: "Spec: " + good},
		{name: "unknown verb", args: []string{"lnk", "sandbox", "frobnicate"}, code: ExitUsage, stderr: "unknown verb \"frobnicate\""},
		{name: "unknown flag", args: []string{"lnk", "sandbox", "spec", "--nope"}, code: ExitUsage, stderr: "unknown flag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out, errOut)
			}
			if c.exactOut != nil && out != string(c.exactOut) {
				t.Errorf("stdout differs from the embedded text")
			}
			if !strings.Contains(out, c.stdout) {
				t.Errorf("stdout lacks %q:\n%s", c.stdout, out)
			}
			if !strings.Contains(errOut, c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, errOut)
			}
			if c.code != 0 && !strings.HasPrefix(errOut, "lnk: ") {
				t.Errorf("error does not start with \"lnk: \": %q", errOut)
			}
		})
	}
}

func TestSchemaOutputIsJSON(t *testing.T) {
	_, out, _ := runCLI(t, "lnk", "sandbox", "spec", "--schema")
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("--schema is not JSON: %v", err)
	}
}
