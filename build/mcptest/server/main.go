// Command server is the mcptest MCP server on stdio.
package main

import (
	"fmt"
	"os"

	"lnk.dev/sandbox/build/mcptest"
)

func main() {
	if err := mcptest.ServeStdio(); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
}
