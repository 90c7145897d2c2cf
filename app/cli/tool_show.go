package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func newToolShowCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "show NAME [--json]",
		Short: "Show one tool and the command that adds it again",
		Long: `Show the tool NAME: its server's command, variables (names only), what
never asks, whether it is shared, and the tool add command that defines
it (secrets hidden), to edit with --replace.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			_, s, err := readTools()
			if err != nil {
				return err
			}
			t := s.Tools[args[0]]
			if t == nil {
				return failf(ExitInvalid, "tool show: no tool %s: see lnk sandbox tool list", args[0])
			}
			v := toolView(args[0], t, s)
			if asJSON {
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			w := c.OutOrStdout()
			fmt.Fprintf(w, "Tool:     %s\n", v.Name)
			fmt.Fprintf(w, "Command:  %s\n", quoteAll(v.Command))
			fmt.Fprintf(w, "Env:      %s\n", orDash(strings.Join(v.Env, " ")))
			if v.Ask == "none" {
				fmt.Fprintf(w, "Asks:     no call (--ask none)\n")
			} else {
				fmt.Fprintf(w, "Asks:     every call but: %s\n", orDash(strings.Join(v.Allow, ", ")))
			}
			shared := "no: one server per session"
			if v.Shared {
				shared = "yes: one server for every sandbox, stopped after " + v.Idle + " without calls"
			}
			fmt.Fprintf(w, "Shared:   %s\n", shared)
			add := []string{"lnk", "sandbox", "tool", "add", v.Name, "--replace"}
			if len(v.Allow) > 0 {
				add = append(add, "--allow", strings.Join(v.Allow, ","))
			}
			if v.Ask == "none" {
				add = append(add, "--ask", "none")
			}
			if v.Shared {
				add = append(add, "--shared")
			}
			for _, k := range v.Env {
				add = append(add, "--env", k+"=<hidden>")
			}
			add = append(add, "--")
			fmt.Fprintf(w, "Add:      %s %s\n", quoteAll(add), quoteAll(v.Command))
			fmt.Fprintf(w, "Spec:     [network] tools = [%q]\n", v.Name)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the tool as JSON")
	return c
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
