package cli

import (
	"path/filepath"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/installer"
)

func newUninstallCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall",
		Short: "Remove exactly what 'lnk sandbox install' wrote",
		Long: `Remove exactly what 'lnk sandbox install' wrote, as its record lists it:
the copied program, the autostart entry or unit, the desktop entry and
icon, the Run key value, and the folders install created if they are
empty. A file changed since install is kept, and said so. Your specs,
settings and logs stay. A tray that runs keeps running until you quit it.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o, err := installOptions()
			if err != nil {
				return err
			}
			if err := installer.Uninstall(filepath.Join(o.StateDir, "installed.json"), c.OutOrStdout()); err != nil {
				return failf(ExitFailure, "%v", err)
			}
			return nil
		},
	}
}
