// Command lnk is lnk sandbox's one binary: the CLI, the daemon and tray,
// and the helpers that run inside a sandbox. It also answers as
// lnk-sandbox, and (inside a sandbox) as the browser opener.
package main

import (
	"os"

	"lnk.dev/sandbox/app/cli"
)

func main() {
	os.Exit(cli.Main(os.Args))
}
