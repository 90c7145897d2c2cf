// Command client is an MCP client built on the MCP Go SDK, run inside a
// sandbox by the tools bridge's end-to-end tests: it starts
// `lnk sandbox tool connect TOOL` as its server's command and runs the
// operations named on its command line, printing one line for each.
//
//	client [-lnk /run/lnk/lnk] TOOL list | call:NAME:JSON ...
//
// Output: "list ok: a,b,c", "call NAME ok: TEXT", "call NAME error: MSG";
// a failed connection prints "connect error: MSG" and exits 3.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	lnk := flag.String("lnk", "/run/lnk/lnk", "the lnk program")
	flag.Parse()
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: client [-lnk PATH] TOOL list|call:NAME:JSON...")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.Command(*lnk, "sandbox", "tool", "connect", flag.Arg(0))
	cmd.Stderr = os.Stderr
	cl := mcp.NewClient(&mcp.Implementation{Name: "sandboxed-client", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fmt.Printf("connect error: %v\n", err)
		os.Exit(3)
	}
	defer cs.Close()
	for _, op := range flag.Args()[1:] {
		if op == "list" {
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				fmt.Printf("list error: %v\n", err)
				continue
			}
			var names []string
			for _, t := range res.Tools {
				names = append(names, t.Name)
			}
			sort.Strings(names)
			fmt.Printf("list ok: %s\n", strings.Join(names, ","))
			continue
		}
		rest, ok := strings.CutPrefix(op, "call:")
		name, args, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 {
			fmt.Fprintf(os.Stderr, "bad operation %q\n", op)
			os.Exit(2)
		}
		var a map[string]any
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			fmt.Fprintf(os.Stderr, "bad arguments %q: %v\n", args, err)
			os.Exit(2)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: a})
		if err != nil {
			fmt.Printf("call %s error: %s\n", name, strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		var texts []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		state := "ok"
		if res.IsError {
			state = "tool-error"
		}
		fmt.Printf("call %s %s: %s\n", name, state, strings.ReplaceAll(strings.Join(texts, " "), "\n", " "))
	}
}
