package check

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnePackageDoc checks that every package has exactly one package doc
// comment ("// Package x ..." or, for a command, "// Command x ...").
func TestOnePackageDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	dirs := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			dirs[filepath.Dir(p)] = append(dirs[filepath.Dir(p)], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 3 {
		t.Fatalf("found only %d packages", len(dirs))
	}
	fset := token.NewFileSet()
	for dir, files := range dirs {
		var docs []string
		for _, f := range files {
			af, err := parser.ParseFile(fset, f, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if af.Doc == nil {
				continue
			}
			text := af.Doc.Text()
			want := "Package " + af.Name.Name + " "
			if af.Name.Name == "main" {
				want = "Command "
			}
			if !strings.HasPrefix(text, want) {
				t.Errorf("%s: package comment should start %q", f, want)
			}
			docs = append(docs, filepath.Base(f))
		}
		if len(docs) != 1 {
			t.Errorf("%s has %d package doc comments %v, want exactly one", dir, len(docs), docs)
		}
	}
}
