package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func newStatusCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status [--json]",
		Short: "Say whether the daemon runs, its version, socket and sandbox counts",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cl, err := daemonClient(c.Context(), c.ErrOrStderr())
			if err != nil {
				return err
			}
			st, err := cl.Status(c.Context())
			if err != nil {
				return daemonErr(err)
			}
			out := c.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
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
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return c
}
