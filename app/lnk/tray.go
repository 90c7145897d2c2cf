package main

import (
	"context"
	"log"
	"os"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/daemon"
	"lnk.dev/sandbox/app/tray"
	"lnk.dev/sandbox/spec"
)

// runTray runs the daemon with the tray as its view: the daemon in a
// goroutine, the tray on this one (the main goroutine, which macOS's
// menu bar needs). Quit in the tray's menu ends both; so does ctx.
func runTray(ctx context.Context, cfg daemon.Config) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan *daemon.Daemon, 1)
	cfg.Ready = func(d *daemon.Daemon) { ready <- d }
	errc := make(chan error, 1)
	go func() { errc <- daemon.Run(ctx, cfg) }()
	select {
	case err := <-errc:
		return err
	case d := <-ready:
		paths, err := apitype.DefaultPaths()
		if err != nil {
			cancel()
			<-errc
			return err
		}
		home, _ := os.UserHomeDir()
		dirs := spec.DefaultLinkDirs(home, os.Getenv("XDG_CONFIG_HOME"), os.Getenv("XDG_STATE_HOME"),
			os.Getenv("XDG_CACHE_HOME"), os.Getenv("XDG_RUNTIME_DIR"))
		tray.Run(ctx, d, tray.Options{Paths: paths, SettingsDir: dirs.Config, Logf: log.Printf})
		cancel()
		return <-errc
	}
}
