package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/client"
)

func newStatusCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status [--json]",
		Short: "Say whether the daemon runs, its version, socket and sandbox counts",
		Long: `Say whether lnk's daemon runs, its version, socket, log folder and how many
sandboxes it has in each state. Unlike the other verbs, status does not
start the daemon: it says when it is not running, or when it died.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cl := &client.Client{}
			st, err := cl.Status(c.Context())
			if errors.Is(err, client.ErrNoDaemon) {
				st = &apitype.Status{Socket: cl.Socket}
			} else if err != nil {
				return daemonErr(err)
			}
			out := c.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			printStatus(out, st)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return c
}

func printStatus(out io.Writer, st *apitype.Status) {
	if !st.Running {
		why := "not running (the other verbs start it on demand)"
		if _, err := os.Lstat(st.Socket); err == nil {
			why = "NOT running: it stopped unexpectedly, and the sandboxes it ran lost their network (the next verb starts a new one)"
		}
		fmt.Fprintf(out, "daemon:    %s\n", why)
		fmt.Fprintf(out, "version:   cli %s\n", Version)
		fmt.Fprintf(out, "socket:    %s\n", st.Socket)
		return
	}
	var counts []string
	for state, n := range st.Counts {
		counts = append(counts, fmt.Sprintf("%d %s", n, state))
	}
	sort.Strings(counts)
	if len(counts) == 0 {
		counts = []string{"none"}
	}
	fmt.Fprintf(out, "daemon:    running, pid %d, up %s\n", st.PID, time.Since(st.Started).Truncate(time.Second))
	fmt.Fprintf(out, "version:   daemon %s, cli %s\n", st.Version, Version)
	fmt.Fprintf(out, "socket:    %s\n", st.Socket)
	fmt.Fprintf(out, "log:       %s\n", st.LogDir)
	fmt.Fprintf(out, "sandboxes: %s\n", strings.Join(counts, ", "))
	if st.Refused > 0 {
		fmt.Fprintf(out, "refused:   %d connections from other users or from inside sandboxes\n", st.Refused)
	}
}
