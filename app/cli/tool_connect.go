package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/confine"
	"lnk.dev/sandbox/spec"
)

func newToolConnectCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "connect NAME",
		Short: "Inside a sandbox: speak MCP (stdio) to the tool NAME, which runs outside",
		Long: `Carry MCP's stdio (one JSON-RPC message per line) between stdin/stdout and
the tool NAME, through the proxy named by HTTP_PROXY with the sandbox's
credentials. Use it as the server's command in an agent's MCP settings:

  {"command": "lnk", "args": ["sandbox", "tool", "connect", "NAME"]}

The sandbox's spec must name the tool ([network] tools = ["NAME"]); the
server runs outside, and each call asks the person unless allowed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			proxy := os.Getenv("HTTP_PROXY")
			if proxy == "" {
				proxy = os.Getenv("http_proxy")
			}
			if proxy == "" {
				return failf(ExitFailure, "tool connect: HTTP_PROXY is not set: run it inside an lnk sandbox")
			}
			if !spec.ValidToolName(args[0]) {
				return failf(ExitUsage, "tool connect: %q is not a tool's name: see lnk sandbox tool list (outside the sandbox)", args[0])
			}
			if err := toolConnect(c.Context(), proxy, args[0], c.InOrStdin(), c.OutOrStdout()); err != nil {
				return failf(ExitFailure, "%v", err)
			}
			return nil
		},
	}
}

// toolConnect opens the tools route for name through the proxy at
// proxyURL and relays stdin to it and it to stdout until the bridge
// closes the connection (after stdin's end, once the answers are in).
func toolConnect(ctx context.Context, proxyURL, name string, stdin io.Reader, stdout io.Writer) error {
	c, creds, err := confine.DialProxy(ctx, proxyURL)
	if err != nil {
		return fmt.Errorf("tool connect: %w", err)
	}
	defer c.Close()
	req := "GET http://lnk.sandbox/tools/" + name + " HTTP/1.1\r\nHost: lnk.sandbox\r\n" +
		"Connection: Upgrade\r\nUpgrade: lnk-mcp\r\n" + creds
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		return fmt.Errorf("tool connect: %v", err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodGet})
	if err != nil {
		return fmt.Errorf("tool connect: the proxy did not answer: %v", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		msg := strings.TrimSpace(string(body))
		if msg == "" {
			msg = resp.Status
		}
		return fmt.Errorf("tool connect %s: %s", name, msg)
	}
	_ = c.SetDeadline(time.Time{})
	go func() {
		_, _ = io.Copy(c, stdin)
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite() // answers may still come
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(stdout, br)
		done <- err
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return nil
}
