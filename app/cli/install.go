package cli

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/assets"
	"lnk.dev/sandbox/installer"
	"lnk.dev/sandbox/spec"
)

// installOptions reads the machine for installer.Options.
func installOptions() (installer.Options, error) {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return installer.Options{}, failf(ExitFailure, "cannot find your home folder: set HOME")
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return installer.Options{}, failf(ExitFailure, "cannot find the lnk program: %v", err)
	}
	dirs := spec.DefaultLinkDirs(home, os.Getenv("XDG_CONFIG_HOME"), os.Getenv("XDG_STATE_HOME"),
		os.Getenv("XDG_CACHE_HOME"), os.Getenv("XDG_RUNTIME_DIR"))
	goos := runtime.GOOS
	if goos != "darwin" && goos != "windows" {
		goos = "linux" // the BSDs' desktops follow XDG too
	}
	return installer.Options{
		OS: goos, Home: home, Exe: exe, StateDir: dirs.State,
		ConfigHome: os.Getenv("XDG_CONFIG_HOME"), DataHome: os.Getenv("XDG_DATA_HOME"),
		LocalAppData: os.Getenv("LOCALAPPDATA"),
	}, nil
}

func newInstallCmd() *cobra.Command {
	var binDir, autostart string
	var inPlace, dryRun bool
	c := &cobra.Command{
		Use:   "install",
		Short: "Install lnk for this user and start its tray at login",
		Long: `Install lnk for you (no root needed): copy this program to ~/.local/bin
(or use it where it is with --in-place), start the tray at login (Linux:
an XDG autostart entry, or a systemd --user unit with --autostart=systemd;
macOS: a LaunchAgent; Windows: the HKCU Run key), and add a desktop entry
with lnk's icon. It prints each thing it wrote, and records them all so
that 'lnk sandbox uninstall' removes exactly those. Running it again is
safe: what is right already is left alone.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o, err := installOptions()
			if err != nil {
				return err
			}
			o.BinDir, o.InPlace, o.Autostart = binDir, inPlace, autostart
			if binDir != "" && !filepath.IsAbs(binDir) {
				return failf(ExitUsage, "--bin-dir %s: give an absolute folder", binDir)
			}
			p, err := o.Plan(assets.AppIcon())
			if err != nil {
				return failf(ExitInvalid, "%v", err)
			}
			if dryRun {
				return printPlan(c, p)
			}
			if err := installer.Install(p, c.OutOrStdout()); err != nil {
				return failf(ExitFailure, "%v", err)
			}
			if dir := filepath.Dir(p.Binary); !onPath(dir) {
				c.Printf("note      %s is not on your PATH: add it (e.g. in ~/.profile) to run lnk by name\n", dir)
			}
			c.Printf("note      the tray starts at your next login; to start it now: %s sandbox tray &\n", p.Binary)
			return nil
		},
	}
	c.Flags().StringVar(&binDir, "bin-dir", "", "copy the program into `DIR` (default ~/.local/bin)")
	c.Flags().BoolVar(&inPlace, "in-place", false, "use this program where it is; copy nothing")
	c.Flags().StringVar(&autostart, "autostart", "xdg", "how the tray starts at login on Linux: xdg, systemd or none (macOS, Windows: none turns it off)")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print what would be written, and write nothing")
	return c
}

// onPath reports whether dir is one of $PATH's folders.
func onPath(dir string) bool {
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if filepath.Clean(d) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}

func printPlan(c *cobra.Command, p *installer.Plan) error {
	if p.CopyFrom != "" {
		c.Printf("would copy   %s -> %s\n", p.CopyFrom, p.Binary)
	} else {
		c.Printf("would use    %s where it is\n", p.Binary)
	}
	for _, f := range p.Files {
		c.Printf("would write  %s: %s\n", f.Path, f.What)
	}
	for _, l := range p.Links {
		c.Printf("would link   %s -> %s: %s\n", l.Path, l.Target, l.What)
	}
	for _, v := range p.Run {
		c.Printf("would set    HKCU\\%s\\%s = %s\n", installer.RunKey, v.Name, v.Command)
	}
	c.Printf("would record %s\n", p.Record)
	return nil
}
