// Command lnk is lnk sandbox's one binary: the CLI, the daemon and tray,
// and the helpers that run inside a sandbox. It also answers as
// lnk-sandbox, and (inside a sandbox) as the browser opener.
package main

import (
	"context"
	"os"

	"lnk.dev/sandbox/app/cli"
	"lnk.dev/sandbox/app/daemon"
)

func main() {
	// Only this package links the daemon and the tray; the CLI reaches
	// them through this hook so that app/cli never links the proxy.
	cli.RunDaemon = func(ctx context.Context, o cli.DaemonOptions) error {
		cfg := daemon.Config{Socket: o.Socket, Version: cli.Version, AskTimeout: o.AskTimeout, Debug: o.Debug}
		if o.Tray {
			return runTray(ctx, cfg)
		}
		return daemon.Run(ctx, cfg)
	}
	os.Exit(cli.Main(os.Args))
}
