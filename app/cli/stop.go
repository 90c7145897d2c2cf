package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newStopCmd() *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "stop ID | --all",
		Short: "Stop a sandbox: end every process in it and cut its network",
		Long: `Stop a sandbox (or every one with --all): its network is cut at once,
then its processes get SIGTERM and, a few seconds later, SIGKILL. Returns
when they are gone.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if (len(args) == 1) == all {
				return failf(ExitUsage, "stop: name one sandbox, or --all")
			}
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			cl, err := daemonClient(c.Context(), c.ErrOrStderr())
			if err != nil {
				return err
			}
			ids, err := cl.Stop(c.Context(), id, all)
			if err != nil {
				return daemonErr(err)
			}
			for _, id := range ids {
				fmt.Fprintf(c.OutOrStdout(), "stopped %s\n", id)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "stop every sandbox")
	return c
}
