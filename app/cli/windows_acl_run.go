package cli

import (
	"github.com/spf13/cobra"

	"lnk.dev/sandbox/confine"
)

// newWindowsACLRunCmd is the hidden verb of Windows's wall: the runner
// that starts a command under a WRITE_RESTRICTED token (confine's package
// doc, "Windows"). It keeps its own failure contract: one line
// "windows-acl-run: <detail>" and exit 127, never lnk's.
func newWindowsACLRunCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "windows-acl-run --workspace DIR --temp DIR --mode read-only|workspace-write [--write-sid SID] -- COMMAND...",
		Short:              "Windows's wall: run a command under a write-restricted token (run by lnk, not by hand)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			if code := confine.RunWindowsACL(args, c.ErrOrStderr()); code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}
