package confine

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ConnectAuthority checks a host and port given to `lnk sandbox connect`
// and returns the CONNECT authority ("host:port", "[v6]:port").
func ConnectAuthority(host, port string) (string, error) {
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 || strconv.Itoa(p) != port {
		return "", fmt.Errorf("connect: port %q is not a number from 1 to 65535", port)
	}
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if h == "" || len(h) > 253 {
		return "", fmt.Errorf("connect: host %q is empty or too long", host)
	}
	for _, r := range h {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_:%", r)
		if !ok {
			return "", fmt.Errorf("connect: host %q has a character a host name cannot have", host)
		}
	}
	return net.JoinHostPort(h, port), nil
}

// Connect opens a tunnel to host:port through the HTTP proxy at proxyURL
// (with its credentials) and copies stdin to it and it to stdout until
// both sides are done. It is `lnk sandbox connect`, git's ssh
// ProxyCommand inside the sandbox.
func Connect(ctx context.Context, proxyURL, host, port string, stdin io.Reader, stdout io.Writer) error {
	auth, err := ConnectAuthority(host, port)
	if err != nil {
		return err
	}
	c, creds, err := DialProxy(ctx, proxyURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer c.Close()
	req := "CONNECT " + auth + " HTTP/1.1\r\nHost: " + auth + "\r\n" + creds
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		return fmt.Errorf("connect: %v", err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		return fmt.Errorf("connect: the proxy did not answer: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("connect: the proxy refused %s: %s (allow the host in the spec's [network] hosts)", auth, resp.Status)
	}
	_ = c.SetDeadline(time.Time{})
	go func() {
		_, _ = io.Copy(c, stdin)
		closeWriteConn(c) // the remote side may still answer
	}()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(stdout, br)
		close(done)
	}()
	select {
	case <-done: // the remote side closed: nothing more will come
	case <-ctx.Done():
	}
	return nil
}

func closeWriteConn(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// basicAuth is the Proxy-Authorization value for user and password.
// DialProxy connects to the sandbox's proxy named by proxyURL (the
// sandbox's HTTP_PROXY) and returns the connection and the
// Proxy-Authorization header line ("" without credentials) that its
// request must carry.
func DialProxy(ctx context.Context, proxyURL string) (net.Conn, string, error) {
	u, err := url.Parse(proxyURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "") {
		return nil, "", errors.New("HTTP_PROXY is not an http:// proxy URL: run it inside an lnk sandbox")
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, "", fmt.Errorf("cannot reach the sandbox's proxy: %v", err)
	}
	creds := ""
	if u.User != nil {
		pass, _ := u.User.Password()
		creds = "Proxy-Authorization: " + basicAuth(u.User.Username(), pass) + "\r\n"
	}
	return c, creds, nil
}

func basicAuth(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}
