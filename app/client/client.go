package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/safesocket"
)

// ErrNoDaemon is returned when nothing answers on the control socket.
var ErrNoDaemon = errors.New("the lnk daemon is not running")

// Client talks to the daemon. The zero value uses the default socket.
type Client struct {
	// Socket is the control socket; "" is this user's default.
	Socket string

	once sync.Once
	hc   *http.Client
	err  error
}

// SocketPath returns the socket the client uses.
func (c *Client) SocketPath() (string, error) {
	if c.Socket != "" {
		return c.Socket, nil
	}
	p, err := apitype.DefaultPaths()
	if err != nil {
		return "", err
	}
	return safesocket.SocketPath(p.Runtime), nil
}

func (c *Client) init() error {
	c.once.Do(func() {
		path, err := c.SocketPath()
		if err != nil {
			c.err = err
			return
		}
		c.Socket = path
		c.hc = &http.Client{Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return safesocket.Dial(ctx, path)
			},
			DisableKeepAlives: true,
			Proxy:             nil,
		}}
	})
	return c.err
}

// do sends one request; in and out may be nil.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	resp, err := c.send(ctx, method, path, in)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("daemon answer to %s: %w", path, err)
	}
	return nil
}

func (c *Client) send(ctx context.Context, method, path string, in any) (*http.Response, error) {
	if err := c.init(); err != nil {
		return nil, err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+apitype.Host+path, body)
	if err != nil {
		return nil, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ne *net.OpError
		if errors.As(err, &ne) && ne.Op == "dial" {
			return nil, fmt.Errorf("%w (%s)", ErrNoDaemon, c.Socket)
		}
		return nil, fmt.Errorf("control socket %s: %w", c.Socket, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		var e apitype.Error
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(b, &e) != nil || e.Message == "" {
			return nil, &apitype.Error{Code: apitype.CodeInternal, Message: fmt.Sprintf("daemon answered %s", resp.Status)}
		}
		return nil, &e
	}
	return resp, nil
}

// Status asks the daemon about itself.
func (c *Client) Status(ctx context.Context) (*apitype.Status, error) {
	var s apitype.Status
	return &s, c.do(ctx, http.MethodGet, apitype.PathStatus, nil, &s)
}

// Wrap registers a sandbox and returns the command that runs it.
func (c *Client) Wrap(ctx context.Context, r *apitype.WrapRequest) (*apitype.WrapResponse, error) {
	var w apitype.WrapResponse
	return &w, c.do(ctx, http.MethodPost, apitype.PathWrap, r, &w)
}

// List returns the registry.
func (c *Client) List(ctx context.Context) ([]apitype.Sandbox, error) {
	var l []apitype.Sandbox
	return l, c.do(ctx, http.MethodGet, apitype.PathList, nil, &l)
}

// Stop stops one sandbox, or every one with all; it returns the ids it
// stopped.
func (c *Client) Stop(ctx context.Context, id string, all bool) ([]string, error) {
	var r apitype.IDsResponse
	err := c.do(ctx, http.MethodPost, apitype.PathStop, &apitype.IDRequest{ID: id, All: all}, &r)
	return r.IDs, err
}

// Pause freezes a sandbox's processes and holds its network.
func (c *Client) Pause(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodPost, apitype.PathPause, &apitype.IDRequest{ID: id}, nil)
}

// Resume undoes Pause.
func (c *Client) Resume(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodPost, apitype.PathResume, &apitype.IDRequest{ID: id}, nil)
}

// Log calls fn for each record of the proxy's log (of one sandbox when
// sandbox is not ""), oldest first; with follow it waits for more until
// ctx ends.
func (c *Client) Log(ctx context.Context, sandbox string, follow bool, fn func(*apitype.LogRecord) error) error {
	q := url.Values{}
	if sandbox != "" {
		q.Set("sandbox", sandbox)
	}
	if follow {
		q.Set("follow", "1")
	}
	path := apitype.PathLog
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	resp, err := c.send(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var r apitype.LogRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("log: bad line from the daemon: %w", err)
		}
		if r.Sandbox == "" && r.Error != "" {
			return errors.New(r.Error)
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return sc.Err()
}
