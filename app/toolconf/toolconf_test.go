package toolconf

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestWriteReadRoundTrip(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cfg", "tools.toml")
	s := &Settings{SharedIdle: "90s", Tools: map[string]*Tool{
		"fs":   {Command: []string{"npx", "-y", "server", "/home/me/a b"}, Env: map[string]string{"TOKEN": "x=y"}, Allow: []string{"read_file", "a.b/c"}},
		"team": {Command: []string{"srv"}, Ask: AskNone, Shared: true},
	}}
	if err := Write(file, s); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v, %v: want 0600", fi.Mode(), err)
	}
	if di, _ := os.Stat(filepath.Dir(file)); di.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v: want 0700", di.Mode())
	}
	got, err := Read(file)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("read %+v, wrote %+v", got, s)
	}
	if got.Idle() != 90*time.Second || !got.Tools["team"].AsksNone() || got.Tools["fs"].AsksNone() {
		t.Fatalf("idle %v, asks", got.Idle())
	}
	if n := got.Names(); !reflect.DeepEqual(n, []string{"fs", "team"}) {
		t.Fatalf("names %v", n)
	}
}

func TestMissingFileIsEmpty(t *testing.T) {
	s, err := Read(filepath.Join(t.TempDir(), "none.toml"))
	if err != nil || len(s.Tools) != 0 || s.Idle() != DefaultSharedIdle {
		t.Fatalf("%+v, %v", s, err)
	}
}

func TestStrict(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[tool.fs]\ncomand = [\"x\"]\n", `unknown key "tool.fs.comand"`},
		{"idle = \"1m\"\n", `unknown key "idle"`},
		{"[tool.FS]\ncommand = [\"x\"]\n", `tool name "FS"`},
		{"[tool.fs]\ncommand = []\n", "tool.fs.command"},
		{"[tool.fs]\ncommand = [\"x\"]\nask = \"sometimes\"\n", "tool.fs.ask"},
		{"[tool.fs]\ncommand = [\"x\"]\nallow = [\"a b\"]\n", "tool.fs.allow"},
		{"[tool.fs]\ncommand = [\"x\"]\nenv = { \"1X\" = \"v\" }\n", "tool.fs.env"},
		{"shared_idle = \"soon\"\n", "shared_idle"},
		{"shared_idle = \"-1s\"\n", "shared_idle"},
		{"[tool.fs\n", "toml"},
	} {
		_, err := Parse([]byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.text, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("shared_idle = \"5m\"\n[tool.fs]\ncommand = [\"npx\"]\nallow = [\"a\"]\nask = \"none\"\nshared = true\nenv = {A = \"b\"}\n"))
	f.Add([]byte("[tool.x]\ncommand = [\"\"]\n"))
	f.Add([]byte("[tool.x]\ncommand = [\"a\"]\nenv = {}\nallow = []\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("parsed settings do not validate: %v", err)
		}
		file := filepath.Join(t.TempDir(), "tools.toml")
		if err := Write(file, s); err != nil {
			t.Fatalf("write: %v", err)
		}
		s2, err := Read(file)
		if err != nil {
			t.Fatalf("read back: %v", err)
		}
		if !reflect.DeepEqual(s, s2) {
			t.Fatalf("round trip: %+v then %+v", s, s2)
		}
	})
}
