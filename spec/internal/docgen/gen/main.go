// Command gen regenerates the spec's schema.json, keys.md and the README's
// keys table. Run it with `go generate ./spec` from the module root.
package main

import (
	"fmt"
	"os"

	"lnk.dev/sandbox/spec/internal/docgen"
)

func main() {
	// go generate runs in the spec folder.
	if err := docgen.Generate(".", "../README.md"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
