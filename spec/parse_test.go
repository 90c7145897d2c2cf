package spec

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestBadFixtures parses every spec in testdata/bad and compares the
// errors with the golden .err file beside it.
func TestBadFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(filepath.Base(f), data)
			if err == nil {
				t.Fatal("parsed without error")
			}
			errs := Errors(err)
			if len(errs) == 0 {
				t.Fatalf("error is not a *spec.Error: %v", err)
			}
			for _, e := range errs {
				if e.File == "" {
					t.Errorf("error names no file: %v", e)
				}
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(f, ".toml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden file (run go test ./spec -run TestBadFixtures -update): %v", err)
			}
			if got != string(want) {
				t.Errorf("errors differ from %s\n got: %s\nwant: %s", golden, got, want)
			}
		})
	}
}

// TestGoodFixtures parses every spec in testdata/good, and checks that
// together they set every key of the format.
func TestGoodFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/good/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no good fixtures: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, data); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		var md toml.MetaData
		var s Spec
		if md, err = toml.Decode(string(data), &s); err != nil {
			t.Fatal(err)
		}
		for _, k := range md.Keys() {
			seen[k.String()] = true
		}
	}
	for _, k := range allKeys(reflect.TypeOf(Spec{}), "") {
		if !seen[k] {
			t.Errorf("no good fixture sets %s", k)
		}
	}
}

// allKeys lists every key path of a struct type.
func allKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		k := tomlName(f)
		if prefix != "" {
			k = prefix + "." + k
		}
		out = append(out, k)
		if f.Type.Kind() == reflect.Struct {
			out = append(out, allKeys(f.Type, k)...)
		}
	}
	sort.Strings(out)
	return out
}

func TestDefaultAndExampleParse(t *testing.T) {
	for name, data := range map[string][]byte{"default": DefaultTOML, "example": ExampleTOML} {
		if _, err := Parse(name, data); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	d := Default()
	if len(d.Network.Hosts) != 0 {
		t.Errorf("default spec allows hosts %v: it must allow none", d.Network.Hosts)
	}
	if !reflect.DeepEqual(d.Filesystem.AllowWrite, []string{"."}) {
		t.Errorf("default spec writes %v, want only the folder", d.Filesystem.AllowWrite)
	}
}

func TestHostileInput(t *testing.T) {
	huge := []byte("# " + strings.Repeat("x", 10<<20) + "\n")
	deep := []byte("x = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n")
	deepInline := []byte("x = " + strings.Repeat("{a=", 50000) + "1" + strings.Repeat("}", 50000) + "\n")
	manyKeys := []byte(strings.Repeat("[network]\n", 2))
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"10 MB", huge, "more than the 1048576 a spec may have"},
		{"deep arrays", deep, "nested more than 8 deep"},
		{"deep inline tables", deepInline, "nested more than 8 deep"},
		{"repeated table", manyKeys, "t.toml:2: "},
		{"invalid utf-8", []byte("[network]\nmode = \"\xc3\x28\"\n"), "t.toml:2: not valid UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.toml", c.data)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "work.toml")
	if err := os.WriteFile(good, []byte("[network]\nhosts = [\"example.com\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(good)
	if err != nil || len(s.Network.Hosts) != 1 {
		t.Fatalf("Load: %v %+v", err, s)
	}
	if _, err := Load(filepath.Join(dir, "missing.toml")); err == nil || !strings.Contains(err.Error(), "missing.toml: cannot read the spec") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("folder: %v", err)
	}
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, make([]byte, MaxSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	var se *Error
	if _, err := Load(big); !errors.As(err, &se) || !strings.Contains(se.Msg, "bytes, more than") {
		t.Errorf("big file: %v", err)
	}
}

func TestErrorLines(t *testing.T) {
	data := "# comment\n[network]\nmode = \"proxy\"\nhosts = [\n  \"a.example\", # first\n  'b.example',\n  \"\"\"*.\"\"\",\n]\n"
	_, err := Parse("work.toml", []byte(data))
	want := "work.toml:7: network.hosts[2]: \"*.\" has no domain after the wildcard: write \"*.example.com\""
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}
