package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// DaemonOptions are the daemon verb's flags.
type DaemonOptions struct {
	// Socket is the control socket; "" is the default.
	Socket string
	// AskTimeout is how long a question waits for the person; 0 is the
	// default (two minutes). Tests shorten it.
	AskTimeout time.Duration
	// Tray shows the tray icon and sends notifications (lnk sandbox
	// tray).
	Tray bool
	// Debug logs each tool call's arguments too.
	Debug bool
}

// RunDaemon is the daemon's body. app/lnk's main sets it: the CLI must not
// link the daemon (nor, through it, the proxy).
var RunDaemon func(ctx context.Context, opts DaemonOptions) error

func newDaemonCmd() *cobra.Command {
	return daemonCmd(&DaemonOptions{})
}

// daemonCmd is the daemon verb; the tray verb is the same with opts.Tray.
func daemonCmd(opts *DaemonOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "daemon",
		Short: "Run the per-user daemon that owns the sandboxes (started on demand)",
		Long: `Run lnk's per-user daemon in the foreground: it owns the sandboxes and
their proxies, and answers the other verbs on a private socket. The other
verbs start it on their own when it is not running; a second daemon finds
the first and exits. When the daemon stops, every sandbox loses its
network and its command is ended.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if RunDaemon == nil {
				return failf(ExitFailure, "this lnk was built without its daemon: build app/lnk")
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := RunDaemon(ctx, *opts); err != nil {
				return failf(ExitFailure, "%v", err)
			}
			return nil
		},
	}
	c.Flags().StringVar(&opts.Socket, "socket", "", "serve on the control socket `PATH` (default: in lnk's runtime folder)")
	c.Flags().MarkHidden("socket")
	c.Flags().DurationVar(&opts.AskTimeout, "ask-timeout", 0, "deny a question after `DURATION` without an answer (default 2m; for tests)")
	c.Flags().MarkHidden("ask-timeout")
	c.Flags().BoolVar(&opts.Debug, "debug", false, "log each tool call's arguments too (they may hold what you would not log)")
	return c
}
