//go:build unix

package tools

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lnk.dev/sandbox/dialogs"
)

// TestSharedHub: three sandboxes call one shared tool at once; each gets
// its own answers (its echoes, its own person's decision, its progress),
// one server runs, and it stops after the idle time, to start again on
// the next call.
func TestSharedHub(t *testing.T) {
	tl, pidFile := goTool(t, "hub")
	tl.Shared, tl.Idle, tl.Allow = true, 1500*time.Millisecond, []string{"echo", "pid", "sleep"}
	dlg := &choose{f: func(q *dialogs.Question) dialogs.Choice {
		if q.Sandbox.ID == "sb2" {
			return dialogs.Deny
		}
		return dialogs.AllowOnce
	}}
	w := newWorld(t, dlg, tl)
	ids := []string{"sb1", "sb2", "sb3"}
	sessions := map[string]*mcp.ClientSession{}
	progress := map[string]*atomic.Int32{}
	for _, id := range ids {
		n := &atomic.Int32{}
		progress[id] = n
		opts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			if r.Params.ProgressToken == "tok" {
				n.Add(1)
			}
		},
			// A subscriptions/listen stays open for the session's life:
			// it must not keep the shared server from its idle stop.
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {},
		}
		sessions[id] = w.sandbox(id, "hub").clientWith(t, "hub", opts)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	serverPids := make(chan string, 3)
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := sessions[id]
			for i := range 15 {
				want := fmt.Sprintf("echo: %s-%d", id, i)
				if out, err := callTool(t, cs, "echo", map[string]any{"text": fmt.Sprintf("%s-%d", id, i)}); err != nil || out != want {
					errs <- fmt.Errorf("%s: echo %d = %q, %v", id, i, out, err)
				}
			}
			out, err := callTool(t, cs, "wipe", map[string]any{"path": id})
			var we *jsonrpc.Error
			switch {
			case id == "sb2" && !(errors.As(err, &we) && we.Code == codeDenied):
				errs <- fmt.Errorf("sb2's wipe: %q, %v: want a refusal", out, err)
			case id != "sb2" && (err != nil || out != "wiped "+id):
				errs <- fmt.Errorf("%s's wipe: %q, %v", id, out, err)
			}
			p := &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 50}}
			p.SetProgressToken("tok")
			if _, err := cs.CallTool(t.Context(), p); err != nil {
				errs <- fmt.Errorf("%s: sleep: %v", id, err)
			}
			pid, err := callTool(t, cs, "pid", nil)
			if err != nil {
				errs <- err
			}
			serverPids <- pid
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	close(serverPids)
	var first string
	for p := range serverPids {
		if first == "" {
			first = p
		} else if p != first {
			t.Errorf("servers %s and %s: want one", first, p)
		}
	}
	// A notification is handled apart from the answer: wait for it.
	for i := 0; i < 100 && (progress["sb1"].Load() == 0 || progress["sb2"].Load() == 0 || progress["sb3"].Load() == 0); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	for _, id := range ids {
		if n := progress[id].Load(); n != 1 {
			t.Errorf("%s got %d progress notifications for its token, want 1", id, n)
		}
	}
	ps := pids(t, pidFile)
	if len(ps) != 1 {
		t.Fatalf("%d servers ran, want 1", len(ps))
	}
	if !waitGone(ps[0], 8*time.Second) {
		t.Fatalf("the shared server %d runs on after its idle time", ps[0])
	}
	// The next call starts it again, and the session goes on.
	if out, err := callTool(t, sessions["sb1"], "echo", map[string]any{"text": "again"}); err != nil || out != "echo: again" {
		t.Fatalf("echo after the idle stop = %q, %v", out, err)
	}
	if ps := pids(t, pidFile); len(ps) != 2 {
		t.Fatalf("%d servers ran, want 2", len(ps))
	}
}
