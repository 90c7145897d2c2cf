package cli

import (
	"net/http"
	"os"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/mcpremote"
)

func newMCPRemoteCmd() *cobra.Command {
	var headers []string
	c := &cobra.Command{
		Use:   "mcp-remote URL [--header 'Name: value'...]",
		Short: "A stdio MCP server that relays to a Streamable HTTP MCP server",
		Long: `Speak MCP on stdin/stdout and relay every message to the Streamable HTTP
MCP server at URL, sending the headers with each request. Use it as a
tool's command, so the server's token stays in lnk's settings, outside
every sandbox:

  lnk sandbox tool add docs --env TOKEN=... -- lnk-sandbox sandbox mcp-remote https://mcp.example.com/mcp --header 'Authorization: Bearer ${TOKEN}'

${NAME} in a header's value is the variable NAME of mcp-remote's own
environment (the tool's --env): a token there is not on a command line,
where other users of this machine could read it. URL is https://, or
http:// only to this machine.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if _, err := mcpremote.CheckURL(args[0]); err != nil {
				return failf(ExitUsage, "%v", err)
			}
			h := http.Header{}
			for _, kv := range headers {
				k, v, err := mcpremote.ParseHeader(kv)
				if err == nil {
					v, err = mcpremote.ExpandHeader(v, os.LookupEnv)
				}
				if err != nil {
					return failf(ExitUsage, "%v", err)
				}
				h.Add(k, v)
			}
			err := mcpremote.Run(c.Context(), mcpremote.Config{URL: args[0], Header: h, Stdin: c.InOrStdin(), Stdout: c.OutOrStdout()})
			if err != nil {
				return failf(ExitFailure, "%v", err)
			}
			return nil
		},
	}
	c.Flags().StringArrayVarP(&headers, "header", "H", nil, "a header sent with every request, 'Name: value' (repeatable)")
	return c
}
