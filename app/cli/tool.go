package cli

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/toolconf"
)

func newToolCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "tool",
		Short: "Add, list and connect to tools: MCP servers that run outside the sandbox",
		Long: `A tool is an MCP server that runs outside every sandbox, with your
credentials and machine, started by lnk when a sandbox connects. A sandbox
reaches only the tools its spec names ([network] tools = ["NAME"]), and
every call asks you unless --allow names it or the tool has --ask none.

Outside a sandbox: tool add, list, show and remove edit your settings
(tools.toml in lnk's config folder, which no sandbox can read or write).
Inside a sandbox, an agent's MCP configuration runs
"lnk sandbox tool connect NAME" as the server's command.`,
		Args: cobra.NoArgs,
	}
	c.AddCommand(newToolAddCmd(), newToolListCmd(), newToolShowCmd(), newToolRemoveCmd(), newToolConnectCmd())
	return c
}

// toolsFile is this user's tool settings file.
func toolsFile() (string, error) {
	p, err := apitype.DefaultPaths()
	if err != nil {
		return "", failf(ExitFailure, "%v", err)
	}
	return p.ToolsFile(), nil
}

// readTools reads the settings.
func readTools() (string, *toolconf.Settings, error) {
	file, err := toolsFile()
	if err != nil {
		return "", nil, err
	}
	s, err := toolconf.Read(file)
	if err != nil {
		return "", nil, failf(ExitInvalid, "%v: fix or remove the file", err)
	}
	return file, s, nil
}

// outsideOnly refuses to edit the settings inside a sandbox, where lnk's
// folders are hidden and the edit would be lost.
func outsideOnly(verb string) error {
	if os.Getenv("LNK_SANDBOX") != "" {
		return failf(ExitUsage, "tool %s: run it outside the sandbox: a sandbox cannot change lnk's settings", verb)
	}
	return nil
}

// maskedCommand shows a tool's command with the values of --header
// arguments hidden, so a token is not printed by list or show.
func maskedCommand(cmd []string) []string {
	out := make([]string, len(cmd))
	for i, a := range cmd {
		out[i] = a
		if i > 0 && (cmd[i-1] == "--header" || cmd[i-1] == "-H") {
			out[i] = maskHeader(a)
		} else if v, ok := strings.CutPrefix(a, "--header="); ok {
			out[i] = "--header=" + maskHeader(v)
		}
	}
	return out
}

func maskHeader(h string) string {
	k, _, ok := strings.Cut(h, ":")
	if !ok {
		return "<hidden>"
	}
	return k + ": <hidden>"
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
