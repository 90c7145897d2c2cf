package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/apitype"
)

func newListCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the sandboxes: id, name, state, uptime, folder, command",
		Long: `List the daemon's sandboxes, oldest first: id, name, state (starting,
running, paused, stopped, exited with its code), uptime, folder, command,
and the last host the proxy refused. --json prints the daemon's records.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cl, err := daemonClient(c.Context(), c.ErrOrStderr())
			if err != nil {
				return err
			}
			list, err := cl.List(c.Context())
			if err != nil {
				return daemonErr(err)
			}
			if asJSON {
				if list == nil {
					list = []apitype.Sandbox{}
				}
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(list)
			}
			printList(c.OutOrStdout(), list, time.Now())
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return c
}

func printList(w io.Writer, list []apitype.Sandbox, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATE\tUPTIME\tFOLDER\tCOMMAND\tLAST BLOCKED")
	for _, s := range list {
		state := s.State
		if s.ExitCode != nil {
			state = fmt.Sprintf("%s (%d)", s.State, *s.ExitCode)
		}
		up := "-"
		if !s.Started.IsZero() && (s.State == apitype.StateRunning || s.State == apitype.StatePaused) {
			up = now.Sub(s.Started).Truncate(time.Second).String()
		}
		blocked := s.LastBlocked
		if blocked == "" {
			blocked = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, clean(s.Name), state, up, clean(s.Folder), clean(strings.Join(s.Argv, " ")), clean(blocked))
	}
	tw.Flush()
}

// clean keeps a field on one line and free of terminal escapes.
func clean(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			b.WriteString("?")
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) > 60 {
		out = out[:57] + "..."
	}
	return out
}
