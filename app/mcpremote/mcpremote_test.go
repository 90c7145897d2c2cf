package mcpremote

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lnk.dev/sandbox/build/mcptest"
)

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://mcp.example.com/mcp", true},
		{"http://127.0.0.1:8080/mcp", true},
		{"http://[::1]:8080/mcp", true},
		{"http://localhost/mcp", true},
		{"http://mcp.example.com/mcp", false},
		{"http://10.0.0.1/mcp", false},
		{"ftp://127.0.0.1/", false},
		{"https://user:pw@mcp.example.com/", false},
		{"mcp.example.com", false},
		{"", false},
	} {
		if _, err := CheckURL(tc.url); (err == nil) != tc.ok {
			t.Errorf("CheckURL(%q) = %v, want ok=%v", tc.url, err, tc.ok)
		}
	}
}

func TestParseHeader(t *testing.T) {
	k, v, err := ParseHeader("authorization:  Bearer abc ")
	if err != nil || k != "Authorization" || v != "Bearer abc" {
		t.Fatalf("%q %q %v", k, v, err)
	}
	for _, bad := range []string{"nocolon", ": v", "a b: v", "k: v\r\nX: y", "k(: v"} {
		if _, _, err := ParseHeader(bad); err == nil {
			t.Errorf("ParseHeader(%q) passed", bad)
		}
	}
}

// The SDK's client, over stdio pipes, reaches the SDK's Streamable HTTP
// server through Run, which adds the header to every request.
func TestRelay(t *testing.T) {
	var mu sync.Mutex
	var seen, without int
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcptest.NewServer("remote") }, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Header.Get("X-Token") == "secret" {
			seen++
		} else {
			without++
		}
		mu.Unlock()
		h.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	defer srv.Close()

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{URL: "http://" + ln.Addr().String() + "/mcp", Header: http.Header{"X-Token": {"secret"}}, Stdin: inR, Stdout: outW})
		outW.Close()
	}()
	cl := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "far"}})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "echo: far" {
		t.Fatalf("result %+v", res.Content)
	}
	cs.Close()
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end after stdin closed")
	}
	mu.Lock()
	defer mu.Unlock()
	if seen == 0 || without != 0 {
		t.Fatalf("requests with the header %d, without %d", seen, without)
	}
}

func TestRefusesPlainHTTPElsewhere(t *testing.T) {
	err := Run(context.Background(), Config{URL: "http://mcp.example.com/mcp", Stdin: strings.NewReader(""), Stdout: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "https") {
		t.Fatalf("err = %v", err)
	}
}

func TestExpandHeader(t *testing.T) {
	env := map[string]string{"TOKEN": "abc", "BAD": "x\ny"}
	look := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct{ in, out string }{
		{"Bearer ${TOKEN}", "Bearer abc"},
		{"${TOKEN}-${TOKEN}", "abc-abc"},
		{"plain $TOKEN", "plain $TOKEN"},
		{"", ""},
	} {
		if got, err := ExpandHeader(tc.in, look); err != nil || got != tc.out {
			t.Errorf("ExpandHeader(%q) = %q, %v", tc.in, got, err)
		}
	}
	for _, bad := range []string{"${MISSING}", "${TOKEN", "${}", "${BAD}"} {
		if _, err := ExpandHeader(bad, look); err == nil {
			t.Errorf("ExpandHeader(%q) passed", bad)
		}
	}
}
