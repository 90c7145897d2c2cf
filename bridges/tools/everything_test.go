//go:build unix

package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"lnk.dev/sandbox/build/testenv"
)

// everythingTool is the reference server from npm (Node), installed by
// build/test.sh into build/mcp.
func everythingTool(t *testing.T, name string) *Tool {
	t.Helper()
	node := testenv.NeedCommand(t, "node", "nodejs")
	script, err := filepath.Abs("../../build/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		testenv.Missing(t, "server-everything", "run build/test.sh, which installs it into build/mcp")
	}
	return &Tool{Name: name, Command: []string{node, script, "stdio"}}
}

// Three sandboxes share one server-everything (a server written for one
// client, on the TypeScript SDK): each gets its own answers.
func TestSharedHubWithEverything(t *testing.T) {
	tl := everythingTool(t, "every")
	tl.Shared, tl.Allow = true, []string{"echo", "get-sum"}
	w := newWorld(t, &choose{}, tl)
	var wg sync.WaitGroup
	for i := range 3 {
		cs := w.sandbox(fmt.Sprintf("sb%d", i), "every").client(t, "every")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				msg := fmt.Sprintf("box%d-%d", i, j)
				if out, err := callTool(t, cs, "echo", map[string]any{"message": msg}); err != nil || out != "Echo: "+msg {
					t.Errorf("echo %s = %q, %v", msg, out, err)
				}
				want := fmt.Sprintf("The sum of %d and %d is %d.", i, j, i+j)
				if out, err := callTool(t, cs, "get-sum", map[string]any{"a": i, "b": j}); err != nil || out != want {
					t.Errorf("get-sum %d %d = %q, %v", i, j, out, err)
				}
			}
		}()
	}
	wg.Wait()
	w.bridge.mu.Lock()
	n := len(w.bridge.hubs)
	w.bridge.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d hubs, want 1", n)
	}
}
