package spec_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"lnk.dev/sandbox/spec"
	"lnk.dev/sandbox/spec/internal/docgen"
)

// TestGeneratedDocsFresh fails when schema.json, keys.md or the README's
// table drift from the Spec type and its comments. Fix: go generate ./spec
func TestGeneratedDocsFresh(t *testing.T) {
	root, err := docgen.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := docgen.Schema(root)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(schema, spec.SchemaJSON) {
		t.Error("schema.json is stale: run go generate ./spec")
	}
	keys := docgen.Keys(root)
	if !bytes.Equal(keys, spec.KeysMarkdown) {
		t.Error("keys.md is stale: run go generate ./spec")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := docgen.SpliceReadme(readme, keys)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readme, want) {
		t.Error("README.md's keys table is stale: run go generate ./spec")
	}
}

// TestSchemaDescribesEveryKey checks the schema is valid JSON that an
// editor can use: every property typed and described, no extra keys.
func TestSchemaDescribesEveryKey(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal(spec.SchemaJSON, &s); err != nil {
		t.Fatalf("schema.json is not JSON: %v", err)
	}
	var walk func(path string, node map[string]any)
	n := 0
	walk = func(path string, node map[string]any) {
		if node["type"] == "object" && node["additionalProperties"] != false {
			t.Errorf("%s allows unknown keys", path)
		}
		props, _ := node["properties"].(map[string]any)
		for k, v := range props {
			child := v.(map[string]any)
			n++
			if d, _ := child["description"].(string); d == "" {
				t.Errorf("%s.%s has no description", path, k)
			}
			if child["type"] == nil {
				t.Errorf("%s.%s has no type", path, k)
			}
			walk(path+"."+k, child)
		}
	}
	walk("spec", s)
	if n < 14 {
		t.Errorf("schema has %d keys, want every key of the format", n)
	}
}

// TestDocgenNeedsComments checks the generator refuses a field with no
// comment, since its comment is the user's doc.
func TestDocgenNeedsComments(t *testing.T) {
	dir := t.TempDir()
	src := "package x\ntype Spec struct {\n\t// Documented.\n\tA string `toml:\"a\"`\n\tB []string `toml:\"b\"`\n}\n"
	if err := os.WriteFile(dir+"/x.go", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := docgen.Load(dir); err == nil {
		t.Fatal("a field without a comment was accepted")
	}
}
