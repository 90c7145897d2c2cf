package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/toolconf"
)

// toolJSON is one tool as `tool list --json` and `tool show --json` print
// it. Environment values and --header values are never printed.
type toolJSON struct {
	Name    string   `json:"name"`
	Command []string `json:"command"`        // --header values hidden
	Env     []string `json:"env"`            // the variables' names only
	Allow   []string `json:"allow"`          // calls that never ask
	Ask     string   `json:"ask"`            // "calls" or "none"
	Shared  bool     `json:"shared"`         // one server for every sandbox
	Idle    string   `json:"idle,omitempty"` // a shared server's idle time
}

func toolView(name string, t *toolconf.Tool, s *toolconf.Settings) toolJSON {
	v := toolJSON{Name: name, Command: maskedCommand(t.Command), Env: []string{}, Allow: t.Allow, Ask: toolconf.AskCalls, Shared: t.Shared}
	for k := range t.Env {
		v.Env = append(v.Env, k)
	}
	sort.Strings(v.Env)
	if v.Allow == nil {
		v.Allow = []string{}
	}
	if t.AsksNone() {
		v.Ask = toolconf.AskNone
	}
	if t.Shared {
		v.Idle = s.Idle().String()
	}
	return v
}

func newToolListCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the tools defined in your settings",
		Long: `List the tools: name, whether calls ask, what is allowed, shared, and the
server's command (--header values hidden). --json prints an array of
{name, command, env (names only), allow, ask, shared, idle}.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, s, err := readTools()
			if err != nil {
				return err
			}
			views := []toolJSON{}
			for _, n := range s.Names() {
				views = append(views, toolView(n, s.Tools[n], s))
			}
			if asJSON {
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(views)
			}
			tw := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tASK\tALLOW\tSHARED\tCOMMAND")
			for _, v := range views {
				allow := strings.Join(v.Allow, ",")
				if allow == "" {
					allow = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", v.Name, v.Ask, allow, v.Shared, quoteAll(v.Command))
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the tools as JSON")
	return c
}
