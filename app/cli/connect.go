package cli

import (
	"os"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/confine"
)

func newConnectCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "connect HOST PORT",
		Short: "Tunnel stdin and stdout to HOST:PORT through the sandbox's proxy",
		Long: `Open a connection to HOST:PORT through the proxy named by HTTP_PROXY
(with its credentials) and pass stdin and stdout through it. Inside a
sandbox, git's ssh uses it as its ProxyCommand, so git over SSH goes
through lnk's proxy like everything else.`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			proxy := os.Getenv("HTTP_PROXY")
			if proxy == "" {
				proxy = os.Getenv("http_proxy")
			}
			if proxy == "" {
				return failf(ExitFailure, "connect: HTTP_PROXY is not set: run it inside an lnk sandbox")
			}
			if err := confine.Connect(c.Context(), proxy, args[0], args[1], c.InOrStdin(), c.OutOrStdout()); err != nil {
				return failf(ExitFailure, "%v", err)
			}
			return nil
		},
	}
}
