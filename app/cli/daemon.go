package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// RunDaemon is the daemon's body. app/lnk's main sets it: the CLI must not
// link the daemon (nor, through it, the proxy). socket "" is the default.
var RunDaemon func(ctx context.Context, socket string) error

func newDaemonCmd() *cobra.Command {
	var socket string
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
			if err := RunDaemon(ctx, socket); err != nil {
				return failf(ExitFailure, "%v", err)
			}
			return nil
		},
	}
	c.Flags().StringVar(&socket, "socket", "", "serve on the control socket `PATH` (default: in lnk's runtime folder)")
	c.Flags().MarkHidden("socket")
	return c
}
