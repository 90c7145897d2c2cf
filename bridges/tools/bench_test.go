//go:build unix

package tools

import (
	"context"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallOverhead measures what the bridge adds to an MCP call: the
// same tools/call (the mcptest server's echo, on the MCP Go SDK) from the
// SDK's client, alternating, straight to the server over stdio and
// through a real proxy and the bridge (allowed without asking); with
// LNK_BENCH_LNK set to an lnk binary, also through `lnk sandbox tool
// connect` as a sandboxed agent runs it. It reports each path's p50 and
// the p50 overhead over direct, in ms.
//
//	go test -run '^$' -bench CallOverhead -benchtime 2000x ./bridges/tools
func BenchmarkCallOverhead(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	server := exec.Command(exe, "-test.run=^$")
	server.Env = append(os.Environ(), serverEnvVar+"=1")
	direct, err := cl.Connect(ctx, &mcp.CommandTransport{Command: server}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()

	tl, _ := goTool(b, "bench")
	tl.Allow = []string{"echo"}
	sb := newWorld(b, &choose{}, tl).sandbox("sb1", "bench")
	bridged := sb.client(b, "bench")
	kinds := []string{"direct", "bridge"}
	sessions := map[string]*mcp.ClientSession{"direct": direct, "bridge": bridged}
	if lnk := os.Getenv("LNK_BENCH_LNK"); lnk != "" {
		conn := exec.Command(lnk, "sandbox", "tool", "connect", "bench")
		conn.Env = []string{"HTTP_PROXY=http://" + sb.id + ":" + sb.secret + "@" + sb.addr}
		conn.Stderr = os.Stderr
		viaConnect, err := cl.Connect(ctx, &mcp.CommandTransport{Command: conn}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer viaConnect.Close()
		kinds = append(kinds, "connect")
		sessions["connect"] = viaConnect
	}
	times := map[string][]time.Duration{}
	call := func(k string) {
		start := time.Now()
		res, err := sessions[k].CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ping"}})
		if err != nil {
			b.Fatalf("%s: %v", k, err)
		}
		if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "echo: ping" {
			b.Fatalf("%s: wrong answer %+v", k, res.Content)
		}
		times[k] = append(times[k], time.Since(start))
	}
	for range 50 { // warm up
		for _, k := range kinds {
			call(k)
		}
	}
	clear(times)
	b.ResetTimer()
	for range b.N {
		for _, k := range kinds {
			call(k)
		}
	}
	b.StopTimer()
	base := p50(times["direct"])
	for _, k := range kinds {
		b.ReportMetric(ms(p50(times[k])), k+"-p50-ms")
		if k != "direct" {
			b.ReportMetric(ms(p50(times[k])-base), k+"-over-direct-p50-ms")
		}
	}
}

func p50(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
