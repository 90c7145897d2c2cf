package proxy_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"lnk.dev/sandbox/proxy"
	"lnk.dev/sandbox/spec"
)

// A daemon makes one proxy per sandbox on a unix socket, registers its
// routes, and stops it when the sandbox ends.
func Example() {
	dir, _ := os.MkdirTemp("", "lnk-example-")
	defer os.RemoveAll(dir)
	lg, _ := proxy.OpenLog(filepath.Join(dir, "log"))
	defer lg.Close()
	p, err := proxy.New(proxy.Config{
		SandboxID: "sb1",
		Secret:    "a-random-secret",
		Network:   spec.NetworkPolicy{Mode: spec.ModeProxy, Endpoints: []string{"ask"}},
		Log:       lg,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	p.Handle("session", "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pid, _, _, ok := proxy.PeerCred(r.Context())
		fmt.Fprintln(w, "peer known:", ok && pid > 0)
	}))
	sock := filepath.Join(dir, "proxy.sock")
	l, _ := net.Listen("unix", sock)
	go p.Serve(l)

	// What init does: ask the proxy's own origin through the socket.
	c := &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyURL(&url.URL{Scheme: "http", User: url.UserPassword("sb1", "a-random-secret"), Host: "lnk.sandbox"}),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
	}}
	for _, u := range []string{"http://lnk.sandbox/health", "http://lnk.sandbox/session"} {
		resp, err := c.Get(u)
		if err != nil {
			fmt.Println(err)
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %s\n", resp.StatusCode, b)
	}
	// Output:
	// 200 ok
	// 200 peer known: true
}
