package oauth

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"lnk.dev/sandbox/spec"
)

// Loopback hosts a callback may name, as [Callback.Host] holds them.
const (
	HostLocalhost = "localhost"
	HostIPv4      = "127.0.0.1"
	HostIPv6      = "::1"
)

// redirectParams are the query parameters that name a login's callback.
var redirectParams = []string{"redirect_uri", "redirect_url"}

// Callback is the loopback address a page's login answers on.
type Callback struct {
	// Host is HostLocalhost, HostIPv4 or HostIPv6.
	Host string
	// Port is the port the page's redirect_uri names (80 when it names
	// none).
	Port int
	// URI is the redirect_uri as the page carries it.
	URI string
}

// Addr is the callback's address as a person reads it: localhost:8085,
// 127.0.0.1:8085, [::1]:8085.
func (c *Callback) Addr() string {
	if c.Host == HostIPv6 {
		return "[::1]:" + strconv.Itoa(c.Port)
	}
	return c.Host + ":" + strconv.Itoa(c.Port)
}

// Redirect returns the loopback callback that page's query names in
// redirect_uri or redirect_url, or nil when it names none (no such
// parameter, or one that is not http:// on localhost, 127.0.0.1 or
// [::1]). A page that names two different loopback callbacks is an
// error: which one the login uses cannot be known.
func Redirect(page *url.URL) (*Callback, error) {
	q, err := url.ParseQuery(page.RawQuery)
	if err != nil && len(q) == 0 {
		return nil, nil
	}
	var found *Callback
	for _, name := range redirectParams {
		for _, v := range q[name] {
			cb, err := parseCallback(v)
			if err != nil {
				return nil, fmt.Errorf("the page's %s %q: %v", name, clip(v), err)
			}
			if cb == nil {
				continue
			}
			if found != nil && (found.Host != cb.Host || found.Port != cb.Port) {
				return nil, fmt.Errorf("the page names two login callbacks, %s and %s: lnk passes one per page", found.Addr(), cb.Addr())
			}
			found = cb
		}
	}
	return found, nil
}

// parseCallback reads one redirect_uri value: nil when it is not a
// loopback http URL, an error when it is one that cannot be used.
func parseCallback(v string) (*Callback, error) {
	u, err := url.Parse(v)
	if err != nil || !strings.EqualFold(u.Scheme, "http") || u.Host == "" {
		return nil, nil
	}
	host := loopbackHost(u.Hostname())
	if host == "" {
		return nil, nil
	}
	port := 80
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, errors.New("has a port that is not a number from 1 to 65535")
		}
		port = n
	}
	return &Callback{Host: host, Port: port, URI: v}, nil
}

// loopbackHost returns which loopback host h is (spelled as a browser
// would read it: case, trailing dot, percent-escapes and the inet_aton
// spellings of 127.0.0.1 folded), or "".
func loopbackHost(h string) string {
	name, addr, err := spec.NormalizeHost(h)
	switch {
	case err != nil:
		return ""
	case name == "localhost":
		return HostLocalhost
	case addr.IsValid() && addr.Is4() && addr.String() == HostIPv4:
		return HostIPv4
	case addr.IsValid() && addr.Is6() && addr.String() == HostIPv6:
		return HostIPv6
	}
	return ""
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:60] + "..." + s[len(s)-40:]
	}
	return s
}
