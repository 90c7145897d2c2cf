package mcpremote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CheckURL accepts https:// URLs, and http:// ones whose host is this
// machine.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("mcp-remote: %q is not a server's URL such as https://mcp.example.com/mcp (and carries no user or password)", raw)
	}
	switch u.Scheme {
	case "https":
		return u, nil
	case "http":
		if isLoopback(u.Hostname()) {
			return u, nil
		}
		return nil, fmt.Errorf("mcp-remote: %s is http:// to another machine: use https://, so its token does not cross the network in the clear", raw)
	}
	return nil, fmt.Errorf("mcp-remote: %s: the URL must be https:// (or http:// to this machine)", raw)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ParseHeader reads "Name: value" (or "Name:value").
func ParseHeader(h string) (string, string, error) {
	k, v, ok := strings.Cut(h, ":")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" || strings.ContainsAny(k, " \t\r\n") || strings.ContainsAny(v, "\r\n\x00") {
		return "", "", fmt.Errorf("mcp-remote: header %q: write it as \"Name: value\"", clip(h))
	}
	for _, r := range k {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) {
			return "", "", fmt.Errorf("mcp-remote: header name %q has a character a header name cannot have", clip(k))
		}
	}
	return http.CanonicalHeaderKey(k), v, nil
}

// ExpandHeader replaces each ${NAME} in a header's value with the
// variable NAME of lookup (mcp-remote's own environment, which a tool's
// --env sets), so a token need not be on a command line, where other
// users of the machine could read it. A variable that is not set is an
// error.
func ExpandHeader(v string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			b.WriteString(v)
			break
		}
		j := strings.IndexByte(v[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("mcp-remote: header value has \"${\" without \"}\"")
		}
		name := v[i+2 : i+j]
		val, ok := lookup(name)
		if !ok || name == "" {
			return "", fmt.Errorf("mcp-remote: header names ${%s}, which is not set: give it to the tool with --env %s=VALUE", clip(name), clip(name))
		}
		if strings.ContainsAny(val, "\r\n\x00") {
			return "", fmt.Errorf("mcp-remote: ${%s} holds a line break", clip(name))
		}
		b.WriteString(v[:i] + val)
		v = v[i+j+1:]
	}
	return b.String(), nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// Config is one relay.
type Config struct {
	// URL is the Streamable HTTP server's endpoint (checked by CheckURL).
	URL string
	// Header is sent with every request.
	Header http.Header
	// Stdin and Stdout are the stdio side.
	Stdin  io.Reader
	Stdout io.Writer
	// Transport is the HTTP transport; nil is http.DefaultTransport.
	Transport http.RoundTripper
}

// Run relays until stdin ends, the server's connection fails, or ctx
// ends.
func Run(ctx context.Context, cfg Config) error {
	if _, err := CheckURL(cfg.URL); err != nil {
		return err
	}
	base := cfg.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	rt := &headerRT{base: base, header: cfg.Header}
	remote, err := (&mcp.StreamableClientTransport{
		Endpoint:             cfg.URL,
		HTTPClient:           &http.Client{Transport: rt},
		DisableStandaloneSSE: true,
	}).Connect(ctx)
	if err != nil {
		return fmt.Errorf("mcp-remote: %v", err)
	}
	defer remote.Close()
	local, err := (&mcp.IOTransport{Reader: io.NopCloser(cfg.Stdin), Writer: nopCloser{cfg.Stdout}}).Connect(ctx)
	if err != nil {
		return fmt.Errorf("mcp-remote: %v", err)
	}
	defer local.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var initID any
	var mu sync.Mutex // guards initID
	errc := make(chan error, 2)
	go func() { // stdio -> server
		for {
			msg, err := local.Read(ctx)
			if err != nil {
				errc <- nil // stdin ended: the client is done
				return
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" && req.IsCall() {
				mu.Lock()
				initID = req.ID.Raw()
				mu.Unlock()
			}
			if err := remote.Write(ctx, msg); err != nil {
				if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
					// Tell the client, rather than leave it waiting.
					resp := &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
						Message: "mcp-remote: the server did not take the request: " + err.Error()}}
					if local.Write(ctx, resp) != nil {
						errc <- err
						return
					}
				}
			}
		}
	}()
	go func() { // server -> stdio
		for {
			msg, err := remote.Read(ctx)
			if err != nil {
				errc <- fmt.Errorf("mcp-remote: the server's connection ended: %v", err)
				return
			}
			if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil {
				mu.Lock()
				isInit := initID != nil && resp.ID.Raw() == initID
				mu.Unlock()
				if isInit {
					var r struct {
						ProtocolVersion string `json:"protocolVersion"`
					}
					if json.Unmarshal(resp.Result, &r) == nil {
						rt.setVersion(r.ProtocolVersion)
					}
				}
			}
			if err := local.Write(ctx, msg); err != nil {
				errc <- nil
				return
			}
		}
	}()
	select {
	case err := <-errc:
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	case <-ctx.Done():
		return nil
	}
}

// headerRT adds the configured headers, and the protocol version once
// known, to every request.
type headerRT struct {
	base   http.RoundTripper
	header http.Header
	mu     sync.Mutex // guards version
	ver    string
}

func (h *headerRT) setVersion(v string) {
	h.mu.Lock()
	h.ver = v
	h.mu.Unlock()
}

func (h *headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range h.header {
		r.Header.Del(k)
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	h.mu.Lock()
	ver := h.ver
	h.mu.Unlock()
	if ver != "" && r.Header.Get("Mcp-Protocol-Version") == "" {
		r.Header.Set("Mcp-Protocol-Version", ver)
	}
	return h.base.RoundTrip(r)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
