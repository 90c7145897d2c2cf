//go:build linux

package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"time"
)

// clientMain is the latency client run inside each sandbox: n small GETs,
// through $HTTP_PROXY if set (even for 127.0.0.1, which Go's default proxy
// rules skip), printing p50 and p99 in ms.
func clientMain(args []string) int {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	target := fs.String("url", "", "URL to GET")
	n := fs.Int("n", 100, "requests")
	keep := fs.Bool("keepalive", false, "reuse one connection")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	tr := &http.Transport{DisableKeepAlives: !*keep, MaxIdleConnsPerHost: 1}
	if p := os.Getenv("HTTP_PROXY"); p != "" {
		u, err := url.Parse(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "client: bad HTTP_PROXY:", err)
			return 1
		}
		tr.Proxy = http.ProxyURL(u)
	}
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	var ms []float64
	for i := 0; i < *n; i++ {
		start := time.Now()
		resp, err := c.Get(*target)
		if err != nil {
			fmt.Fprintln(os.Stderr, "client:", err)
			return 1
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			fmt.Fprintln(os.Stderr, "client: status", resp.Status)
			return 1
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	slices.Sort(ms)
	fmt.Printf("%.3f %.3f\n", pct(ms, 50), pct(ms, 99))
	return 0
}

// pct returns the p-th percentile of sorted samples (nearest rank).
func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
