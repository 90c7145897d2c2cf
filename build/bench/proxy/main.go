// Command proxy measures lnk's sandbox proxy against direct connections,
// side by side in one run, alternating: a 512 MiB download over plain HTTP
// and over CONNECT+TLS, small GETs on new and on kept-alive connections,
// and the heap of an idle listener. Upstreams are local servers on
// 127.0.0.1.
//
//	go run ./build/bench/proxy [-size MiB] [-rounds N] [-n requests]
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"lnk.dev/sandbox/build/bench/benchtls"
	"lnk.dev/sandbox/proxy"
	"lnk.dev/sandbox/spec"
)

const (
	user   = "bench"
	secret = "bench-secret"
)

func main() {
	size := flag.Int("size", 512, "download size in MiB")
	rounds := flag.Int("rounds", 5, "rounds of each download, alternating")
	n := flag.Int("n", 1000, "small GETs per latency measurement")
	flag.Parse()
	if err := run(*size, *rounds, *n); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(sizeMiB, rounds, n int) error {
	dir, err := os.MkdirTemp("", "lnk-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b, err := newBench(dir, int64(sizeMiB)<<20)
	if err != nil {
		return err
	}
	defer b.close()
	fmt.Printf("lnk proxy benchmark: %s, %d cores, %d MiB, %d rounds, %d requests\n\n", runtime.Version(), runtime.NumCPU(), sizeMiB, rounds, n)
	b.download("plain HTTP download", "http://bench.lnk.test:"+b.httpPort+"/big", rounds, 0.5)
	b.download("CONNECT+TLS download", "https://bench.lnk.test:"+b.tlsPort+"/big", rounds, 0.8)
	b.latency("small GET, new connection", "http://bench.lnk.test:"+b.httpPort+"/small", n, false, time.Millisecond)
	b.latency("small GET, keep-alive", "http://bench.lnk.test:"+b.httpPort+"/small", n, true, 300*time.Microsecond)
	return idleHeap(dir)
}

type bench struct {
	size              int64
	httpPort, tlsPort string
	sock, tcp         string
	p                 *proxy.Proxy
	log               *proxy.Log
	closers           []io.Closer
	relays            map[string]string // upstream port -> bare relay address
}

func newBench(dir string, size int64) (*bench, error) {
	b := &bench{size: size}
	chunk := make([]byte, 1<<20)
	mux := http.NewServeMux()
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		for left := size; left > 0; left -= int64(len(chunk)) {
			if _, err := w.Write(chunk[:min(left, int64(len(chunk)))]); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/small", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	var err error
	if b.httpPort, err = b.serve(mux, nil); err != nil {
		return nil, err
	}
	cert, err := benchtls.SelfSigned("*.lnk.test")
	if err != nil {
		return nil, err
	}
	if b.tlsPort, err = b.serve(mux, &tls.Config{Certificates: []tls.Certificate{cert}}); err != nil {
		return nil, err
	}
	b.relays = map[string]string{}
	for _, port := range []string{b.httpPort, b.tlsPort} {
		if b.relays[port], err = b.relay("127.0.0.1:" + port); err != nil {
			return nil, err
		}
	}
	return b, b.startProxy(dir)
}

// relay starts a bare TCP forwarder to target: accept, dial, io.Copy both
// ways (spliced), nothing else.
func (b *bench) relay(target string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	b.closers = append(b.closers, l)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer u.Close()
				go func() { io.Copy(u, c); u.(*net.TCPConn).CloseWrite() }()
				io.Copy(c, u)
			}()
		}
	}()
	return l.Addr().String(), nil
}

// serve starts an upstream on 127.0.0.1 and returns its port.
func (b *bench) serve(h http.Handler, tc *tls.Config) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	if tc != nil {
		l = tls.NewListener(l, tc)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	b.closers = append(b.closers, srv)
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port, nil
}

func (b *bench) startProxy(dir string) error {
	hp, _ := spec.ParseHostPattern("*.lnk.test")
	lan, _ := spec.ParseLANRule("127.0.0.1")
	lg, err := proxy.OpenLog(filepath.Join(dir, "log"))
	if err != nil {
		return err
	}
	b.log = lg
	p, err := proxy.New(proxy.Config{
		SandboxID: user, Secret: secret, Log: lg,
		Network: spec.NetworkPolicy{Mode: spec.ModeProxy, Hosts: []spec.HostPattern{hp}, LAN: []spec.LANRule{lan}},
		Resolve: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
	})
	if err != nil {
		return err
	}
	b.p = p
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	b.tcp = tl.Addr().String()
	b.sock = filepath.Join(dir, "proxy.sock")
	ul, err := net.Listen("unix", b.sock)
	if err != nil {
		return err
	}
	go p.Serve(tl)
	go p.Serve(ul)
	return nil
}

func (b *bench) close() {
	b.p.Close()
	b.log.Close()
	for _, c := range b.closers {
		c.Close()
	}
}

// client returns a client: direct (via "" ), through the proxy's TCP
// listener ("tcp") or its unix socket ("unix").
func (b *bench) client(via string, keepAlive bool) *http.Client {
	tr := &http.Transport{
		DisableKeepAlives:   !keepAlive,
		DisableCompression:  true,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true},
		MaxIdleConnsPerHost: 4,
	}
	var d net.Dialer
	switch via {
	case "":
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			_, port, _ := net.SplitHostPort(addr)
			return d.DialContext(ctx, "tcp", "127.0.0.1:"+port)
		}
	case "relay":
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			_, port, _ := net.SplitHostPort(addr)
			return d.DialContext(ctx, "tcp", b.relays[port])
		}
	default:
		tr.Proxy = http.ProxyURL(&url.URL{Scheme: "http", User: url.UserPassword(user, secret), Host: b.tcp})
		if via == "unix" {
			tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
				return d.DialContext(ctx, "unix", b.sock)
			}
		}
	}
	return &http.Client{Transport: tr}
}

var ways = []string{"", "tcp", "unix"}

// downloadWays adds a bare splice relay: the cost of one more loopback
// TCP hop with no proxy logic, for reference.
var downloadWays = []string{"", "relay", "tcp", "unix"}

func wayName(via string) string {
	switch via {
	case "":
		return "direct"
	case "relay":
		return "bare TCP relay"
	}
	return "proxy over " + via
}

func (b *bench) download(title, u string, rounds int, goal float64) {
	res := map[string][]float64{}
	ratio := map[string][]float64{} // each round's way against that round's direct run
	for r := 0; r < rounds; r++ {
		for _, via := range downloadWays {
			c := b.client(via, false)
			t0 := time.Now()
			resp, err := c.Get(u)
			if err != nil {
				fmt.Printf("  %s: %v\n", wayName(via), err)
				return
			}
			got, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || got != b.size {
				fmt.Printf("  %s: %d bytes, %v\n", wayName(via), got, err)
				return
			}
			res[via] = append(res[via], float64(got)/(1<<20)/time.Since(t0).Seconds())
			ratio[via] = append(ratio[via], res[via][r]/res[""][r])
		}
	}
	fmt.Printf("%s (MiB/s and share of direct in the same round, medians of %d):\n", title, rounds)
	for _, via := range downloadWays {
		m, q := median(res[via]), median(ratio[via])
		line := fmt.Sprintf("  %-16s %8.0f", wayName(via), m)
		switch via {
		case "":
		case "relay":
			line += fmt.Sprintf("   %5.1f%% of direct (reference)", 100*q)
		default:
			verdict := "ok"
			if q < goal {
				verdict = "BELOW GOAL"
			}
			line += fmt.Sprintf("   %5.1f%% of direct (goal >= %.0f%%: %s)", 100*q, 100*goal, verdict)
		}
		fmt.Println(line)
	}
	fmt.Println()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func (b *bench) latency(title, u string, n int, keepAlive bool, goal time.Duration) {
	clients := map[string]*http.Client{}
	res := map[string][]time.Duration{}
	for _, via := range ways {
		clients[via] = b.client(via, keepAlive)
		for i := 0; i < 20; i++ { // warm up
			getSmall(clients[via], u)
		}
	}
	for i := 0; i < n; i++ {
		for _, via := range ways {
			t0 := time.Now()
			if err := getSmall(clients[via], u); err != nil {
				fmt.Printf("  %s: %v\n", wayName(via), err)
				return
			}
			res[via] = append(res[via], time.Since(t0))
		}
	}
	fmt.Printf("%s (%d each, alternating):\n", title, n)
	slices.Sort(res[""])
	d50 := res[""][n/2]
	for _, via := range ways {
		r := res[via]
		slices.Sort(r)
		p50, p99 := r[n/2], r[n*99/100]
		line := fmt.Sprintf("  %-16s p50 %8s  p99 %8s", wayName(via), p50.Round(time.Microsecond), p99.Round(time.Microsecond))
		if via != "" {
			verdict := "ok"
			if p50-d50 > goal {
				verdict = "BELOW GOAL"
			}
			line += fmt.Sprintf("   p50 +%s over direct (goal <= +%s: %s)", (p50 - d50).Round(time.Microsecond), goal, verdict)
		}
		fmt.Println(line)
	}
	fmt.Println()
}

func getSmall(c *http.Client, u string) error {
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return err
}

// idleHeap measures the heap each idle proxy with a unix listener holds.
func idleHeap(dir string) error {
	const k = 100
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	var ps []*proxy.Proxy
	for i := 0; i < k; i++ {
		p, err := proxy.New(proxy.Config{SandboxID: "idle" + strconv.Itoa(i), Secret: secret, Network: spec.NetworkPolicy{Mode: spec.ModeProxy}})
		if err != nil {
			return err
		}
		l, err := net.Listen("unix", filepath.Join(dir, "idle"+strconv.Itoa(i)+".sock"))
		if err != nil {
			return err
		}
		go p.Serve(l)
		ps = append(ps, p)
	}
	time.Sleep(100 * time.Millisecond)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(ps)
	per := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / k
	verdict := "ok"
	if per > 2<<20 {
		verdict = "BELOW GOAL"
	}
	fmt.Printf("idle listener: %.1f KiB heap each (%d proxies; goal <= 2 MiB: %s)\n", per/1024, k, verdict)
	for _, p := range ps {
		p.Close()
	}
	return nil
}
