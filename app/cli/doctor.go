package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/client"
	"lnk.dev/sandbox/confine"
)

// check is one line of doctor's report.
type check struct {
	name string
	ok   bool
	// optional checks (dialogs, tray) warn instead of failing.
	optional bool
	detail   string // what was found
	fix      string // what to do when not ok
}

func newDoctorCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check that this machine can run sandboxes, and say how to fix what is missing",
		Long: `Check what lnk needs here: the wall (bubblewrap working as you, user
namespaces, AppArmor's restriction, Landlock, seccomp), what dialogs and
the tray need (zenity, a display, a session bus), and the daemon. Each
line that is not ok says how to fix it. Exits 125 when a sandbox cannot
run here, 0 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			checks := append(platformChecks(), wallCheck())
			checks = append(checks, desktopChecks()...)
			checks = append(checks, trayChecks()...)
			checks = append(checks, daemonCheck())
			if failed := printChecks(c.OutOrStdout(), checks); failed > 0 {
				return failf(ExitFailure, "%d required check(s) failed: fix the lines marked FAIL above", failed)
			}
			return nil
		},
	}
}

func printChecks(w io.Writer, checks []check) (failed int) {
	for _, ch := range checks {
		mark := "ok  "
		if !ch.ok {
			mark = "FAIL"
			if ch.optional {
				mark = "warn"
			} else {
				failed++
			}
		}
		fmt.Fprintf(w, "%s  %s: %s\n", mark, ch.name, ch.detail)
		if !ch.ok && ch.fix != "" {
			fmt.Fprintf(w, "      fix: %s\n", ch.fix)
		}
	}
	return failed
}

// desktopChecks look for what dialogs and the tray need.
func desktopChecks() []check {
	var out []check
	if p, err := exec.LookPath("zenity"); err == nil {
		out = append(out, check{name: "zenity", ok: true, detail: p})
	} else {
		out = append(out, check{name: "zenity", optional: true, detail: "not found: questions go to the terminal or wait for 'lnk sandbox answer'",
			fix: "install the zenity package for dialogs"})
	}
	disp := os.Getenv("WAYLAND_DISPLAY")
	if disp == "" {
		disp = os.Getenv("DISPLAY")
	}
	out = append(out, check{name: "display", ok: disp != "", optional: true, detail: orText(disp, "none (no DISPLAY or WAYLAND_DISPLAY)"),
		fix: "run lnk from a desktop session for dialogs and the tray"})
	bus := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	out = append(out, check{name: "session bus", ok: bus != "", optional: true, detail: orText(bus, "none (no DBUS_SESSION_BUS_ADDRESS)"),
		fix: "run lnk from a desktop session (the tray and notifications need D-Bus)"})
	return out
}

// wallCheck asks the wall itself whether it can stand here.
func wallCheck() check {
	if err := confine.Check(); err != nil {
		return check{name: "wall", detail: err.Error()}
	}
	return check{name: "wall", ok: true, detail: "confine's own check passes"}
}

func daemonCheck() check {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c := &client.Client{}
	st, err := c.Status(ctx)
	if err != nil {
		return check{name: "daemon", optional: true, detail: "not running (" + err.Error() + ")",
			fix: "nothing to do: the other verbs start it, or run 'lnk sandbox daemon'"}
	}
	return check{name: "daemon", ok: true, detail: fmt.Sprintf("running, pid %d, version %s, %s", st.PID, st.Version, st.Socket)}
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
