package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/toolconf"
)

func newToolAddCmd() *cobra.Command {
	var allow, env []string
	var ask string
	var shared, replace bool
	c := &cobra.Command{
		Use:   "add NAME [--allow a,b] [--ask none] [--shared] [--env K=V...] -- COMMAND [ARGS...]",
		Short: "Define a tool: an MCP server (stdio) that runs outside the sandbox",
		Long: `Define the tool NAME: COMMAND speaks MCP over stdio and runs outside the
sandbox, as you, when a sandbox whose spec names NAME in [network] tools
connects. Every call asks you, but those --allow names; --ask none asks
for none. --shared runs one server for every sandbox (stopped after
shared_idle without calls); a server that keeps state between calls then
shares it. --env sets the server's own variables (the sandbox's never
reach it). A remote server is a tool too:

  lnk sandbox tool add docs --env TOKEN=... -- lnk-sandbox sandbox mcp-remote https://mcp.example.com/mcp --header 'Authorization: Bearer ${TOKEN}'

The token stays in your settings, outside every sandbox (and, given by
--env, off every command line). --replace overwrites a tool of the same
name.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			if err := outsideOnly("add"); err != nil {
				return err
			}
			if c.ArgsLenAtDash() != 1 {
				return failf(ExitUsage, "tool add: give the name, then -- and the server's command: lnk sandbox tool add NAME -- COMMAND [ARGS...]")
			}
			name := args[0]
			t := &toolconf.Tool{Command: args[1:], Shared: shared}
			for _, a := range allow {
				for _, n := range strings.Split(a, ",") {
					if n = strings.TrimSpace(n); n != "" {
						t.Allow = append(t.Allow, n)
					}
				}
			}
			switch ask {
			case "", toolconf.AskCalls:
			case toolconf.AskNone:
				t.Ask = toolconf.AskNone
			default:
				return failf(ExitUsage, "tool add: --ask takes %q (no call asks) or %q (the default)", toolconf.AskNone, toolconf.AskCalls)
			}
			for _, kv := range env {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return failf(ExitUsage, "tool add: --env %q: write it as NAME=VALUE", kv)
				}
				if t.Env == nil {
					t.Env = map[string]string{}
				}
				t.Env[k] = v
			}
			if err := toolconf.ValidateTool(name, t); err != nil {
				return failf(ExitUsage, "tool add: %v", err)
			}
			file, s, err := readTools()
			if err != nil {
				return err
			}
			if s.Tools[name] != nil && !replace {
				return failf(ExitUsage, "tool add: a tool %s is already defined: add --replace to overwrite it, or see lnk sandbox tool show %s", name, name)
			}
			s.Tools[name] = t
			if err := toolconf.Write(file, s); err != nil {
				return failf(ExitFailure, "tool add: %v", err)
			}
			fmt.Fprintf(c.ErrOrStderr(), "lnk: tool %s added; a sandbox reaches it when its spec has [network] tools = [%q]\n", name, name)
			return nil
		},
	}
	f := c.Flags()
	f.StringSliceVar(&allow, "allow", nil, "the server's tools whose calls never ask (comma-separated, repeatable)")
	f.StringVar(&ask, "ask", "", `"none": no call asks`)
	f.BoolVar(&shared, "shared", false, "one server for every sandbox, stopped when idle")
	f.StringArrayVar(&env, "env", nil, "a variable of the server's, NAME=VALUE (repeatable)")
	f.BoolVar(&replace, "replace", false, "overwrite a tool of the same name")
	return c
}
