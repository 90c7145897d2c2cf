package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/apitype"
)

func newLogCmd() *cobra.Command {
	var (
		follow, asJSON bool
		sandbox        string
	)
	c := &cobra.Command{
		Use:   "log [--follow] [--sandbox ID] [--json]",
		Short: "Show the proxy's log: every connection, allowed or refused",
		Long: `Show the proxy's log, oldest first: time, sandbox, host:port, decision and
the rule that decided. --json prints the records as JSON Lines (time,
sandbox, proto, host, port, addr, decision, rule, up, down, duration_ms,
error); --follow waits for new ones until Ctrl-C.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(c.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			cl, err := daemonClient(ctx, c.ErrOrStderr())
			if err != nil {
				return err
			}
			out := c.OutOrStdout()
			enc := json.NewEncoder(out)
			err = cl.Log(ctx, sandbox, follow, func(r *apitype.LogRecord) error {
				if asJSON {
					return enc.Encode(r)
				}
				_, err := io.WriteString(out, logLine(r))
				return err
			})
			if err != nil {
				return daemonErr(err)
			}
			return nil
		},
	}
	c.Flags().BoolVarP(&follow, "follow", "f", false, "wait for new records")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines")
	c.Flags().StringVar(&sandbox, "sandbox", "", "only the sandbox `ID`")
	return c
}

// logLine is the human view of one record.
func logLine(r *apitype.LogRecord) string {
	target := r.Host
	if r.Port != 0 {
		target = net.JoinHostPort(r.Host, strconv.Itoa(int(r.Port)))
	}
	s := fmt.Sprintf("%s  %s  %-5s  %s  %s", r.Time.Local().Format(time.DateTime), r.Sandbox, r.Decision, clean(target), clean(r.Rule))
	if r.Error != "" {
		s += "  (" + clean(r.Error) + ")"
	}
	return s + "\n"
}
