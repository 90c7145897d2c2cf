package cli

import (
	"github.com/spf13/cobra"

	"lnk.dev/sandbox/confine"
)

// newInitCmd is the hidden verb run by the wall: the guard outside it
// (--guard) and init, the first process inside it.
func newInitCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "init",
		Short:              "The wall's own process (run by lnk, not by hand)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			if code := confine.RunInit(args); code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}
