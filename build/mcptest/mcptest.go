// Package mcptest is a small MCP server built on the MCP Go SDK, for the
// tools bridge's tests and benchmark: tools that echo, claim to destroy,
// read the server's environment, give its pid, sleep and report progress.
// It is real MCP: the SDK's own server, over stdio or Streamable HTTP.
package mcptest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PidFileEnv names a file each stdio server appends its pid to when it
// starts, so a test can count the servers that ran.
const PidFileEnv = "MCPTEST_PIDFILE"

// EchoIn is the echo tool's input.
type EchoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// PathIn is the wipe tool's input.
type PathIn struct {
	Path string `json:"path" jsonschema:"what to wipe (nothing is wiped)"`
}

// EnvIn is the env tool's input.
type EnvIn struct {
	Name string `json:"name" jsonschema:"an environment variable's name"`
}

// SleepIn is the sleep tool's input.
type SleepIn struct {
	MS int `json:"ms" jsonschema:"milliseconds to sleep"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// NewServer returns the test server.
func NewServer(name string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
	yes := true
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "wipe", Description: "Pretend to wipe a path.", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}},
		func(_ context.Context, _ *mcp.CallToolRequest, in PathIn) (*mcp.CallToolResult, any, error) {
			return text("wiped " + in.Path), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Read one of the server's environment variables."},
		func(_ context.Context, _ *mcp.CallToolRequest, in EnvIn) (*mcp.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Name)
			if !ok {
				v = "<unset>"
			}
			return text(v), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "The server's process id."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(os.Getpid())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "Ask the client for its roots and list them."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			//lint:ignore SA1019 roots is how a server asks its client before 2026-07-28, which servers still speak
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return text(strings.Join(uris, " ")), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleep, reporting progress if asked."},
		func(ctx context.Context, req *mcp.CallToolRequest, in SleepIn) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 0.5, Total: 1})
			}
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("slept"), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	return s
}

// ServeStdio runs the server on stdin and stdout until stdin ends,
// appending its pid to $MCPTEST_PIDFILE first.
func ServeStdio() error {
	if f := os.Getenv(PidFileEnv); f != "" {
		pf, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		fmt.Fprintln(pf, os.Getpid())
		pf.Close()
	}
	return NewServer("mcptest").Run(context.Background(), &mcp.StdioTransport{})
}
