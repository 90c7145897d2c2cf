package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/client"
)

func newPauseCmd() *cobra.Command {
	return pauseCmd("pause", "Freeze a sandbox's processes and hold its network",
		`Freeze every process in the sandbox (SIGSTOP) and hold its new connections
until 'lnk sandbox resume ID'.`, (*client.Client).Pause)
}

func newResumeCmd() *cobra.Command {
	return pauseCmd("resume", "Resume a paused sandbox",
		`Let a paused sandbox's processes and connections go on.`, (*client.Client).Resume)
}

func pauseCmd(verb, short, long string, fn func(*client.Client, context.Context, string) error) *cobra.Command {
	return &cobra.Command{
		Use:   verb + " ID",
		Short: short,
		Long:  long,
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			cl, err := daemonClient(c.Context(), c.ErrOrStderr())
			if err != nil {
				return err
			}
			if err := fn(cl, c.Context(), args[0]); err != nil {
				return daemonErr(err)
			}
			fmt.Fprintf(c.OutOrStdout(), "%sd %s\n", verb, args[0])
			return nil
		},
	}
}
