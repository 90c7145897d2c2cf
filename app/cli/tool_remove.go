package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/toolconf"
)

func newToolRemoveCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a tool from your settings",
		Long: `Remove the tool NAME. Sessions already connected keep their server until
they end; new ones are refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := outsideOnly("remove"); err != nil {
				return err
			}
			file, s, err := readTools()
			if err != nil {
				return err
			}
			if s.Tools[args[0]] == nil {
				return failf(ExitInvalid, "tool remove: no tool %s: see lnk sandbox tool list", args[0])
			}
			delete(s.Tools, args[0])
			if err := toolconf.Write(file, s); err != nil {
				return failf(ExitFailure, "tool remove: %v", err)
			}
			fmt.Fprintf(c.ErrOrStderr(), "lnk: tool %s removed\n", args[0])
			return nil
		},
	}
}
