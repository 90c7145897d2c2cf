package open

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"lnk.dev/sandbox/spec"
)

// MaxURL is the longest URL a sandbox may ask to open, in bytes: longer
// ones cannot be read whole in a dialog.
const MaxURL = 8 << 10

// Page is a URL checked for opening: what the person is shown is what
// opens.
type Page struct {
	// URL is the URL that opens, in plain printable ASCII: the host in
	// punycode (or an address in its one plain spelling), every other
	// byte outside printable ASCII percent-escaped. The dialog shows it
	// whole, and the browser gets exactly it.
	URL string
	// Host is the site: a name in punycode, an IPv4 address, or an IPv6
	// address in brackets.
	Host string
	// Port is the port the page opens on (80 or 443 by default).
	Port int
	// User is the user name (and password) the URL carries before an @,
	// "" when none. It is shown: "https://bank.example@evil.example/"
	// opens evil.example.
	User string
	// Addr is the host's address when Host is one.
	Addr netip.Addr
	// IDN reports whether the host was an international name.
	IDN bool
	// u is URL parsed.
	u *url.URL
}

// RefusedError says why a URL does not open. Its text is for the person
// and the program that asked.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return e.Reason }

func refused(format string, args ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// ParsePage checks raw as a page to open: only well-formed http and https
// URLs with a host pass. Everything else (file:, javascript:, data:,
// custom schemes, relative or malformed URLs, control characters,
// backslashes) is a *RefusedError that says why.
func ParsePage(raw string) (*Page, error) {
	raw = strings.Trim(raw, " \t\r\n")
	switch {
	case raw == "":
		return nil, refused("no URL was given")
	case len(raw) > MaxURL:
		return nil, refused("the URL is %d bytes long, over lnk's limit of %d: no one can check a URL that long", len(raw), MaxURL)
	}
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c < 0x20 || c == 0x7f:
			return nil, refused("the URL holds a control character (byte 0x%02X at %d), which can hide what it opens", c, i)
		case c == '\\':
			return nil, refused("the URL holds a backslash at %d, which browsers read as / and which can hide the site it opens", i)
		}
	}
	scheme, _, ok := strings.Cut(raw, ":")
	if !ok || !validScheme(scheme) {
		return nil, refused("%q is not a URL: only http:// and https:// pages open", clip(raw))
	}
	if s := strings.ToLower(scheme); s != "http" && s != "https" {
		return nil, refused("only http:// and https:// pages open, not %s: URLs (file:, javascript:, data: and other programs' schemes can read or run things on this computer)", clip(s))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, refused("the URL is malformed: %v", clipErr(err))
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, refused("the URL has no site: write it as %s://site/path", strings.ToLower(u.Scheme))
	}
	return canonical(u)
}

// canonical rebuilds u in the one ASCII form the person reads and the
// browser opens.
func canonical(u *url.URL) (*Page, error) {
	p := &Page{}
	scheme := strings.ToLower(u.Scheme)
	hostname := u.Hostname()
	name, addr, err := spec.NormalizeHost(hostname)
	if err != nil {
		return nil, refused("the URL's site is not a valid host name: %v", clipErr(err))
	}
	switch {
	case addr.IsValid() && addr.Is6():
		p.Host, p.Addr = "["+addr.String()+"]", addr
	case addr.IsValid():
		p.Host, p.Addr = addr.String(), addr
	default:
		p.Host = name
		p.IDN = strings.HasPrefix(name, "xn--") || strings.Contains(name, ".xn--")
	}
	p.Port = 80
	if scheme == "https" {
		p.Port = 443
	}
	host := p.Host
	if ps := u.Port(); ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != ps {
			return nil, refused("the URL's port %q is not a number from 1 to 65535", clip(ps))
		}
		if n != p.Port {
			host += ":" + ps
		}
		p.Port = n
	}
	c := &url.URL{
		Scheme: scheme, User: u.User, Host: host,
		Path: u.Path, RawPath: u.RawPath,
		RawQuery: escapeRaw(u.RawQuery), ForceQuery: u.ForceQuery,
		Fragment: u.Fragment, RawFragment: u.RawFragment,
	}
	if u.User != nil {
		p.User = u.User.String()
	}
	p.URL = c.String()
	if err := checkShown(p); err != nil {
		return nil, err
	}
	p.u = c
	return p, nil
}

// checkShown makes sure the URL is plain printable ASCII and that read
// again it names the same site: what is shown is what opens.
func checkShown(p *Page) error {
	for i := 0; i < len(p.URL); i++ {
		if c := p.URL[i]; c <= 0x20 || c >= 0x7f {
			return refused("the URL cannot be shown as plain text (byte 0x%02X)", c)
		}
	}
	again, err := url.Parse(p.URL)
	if err != nil {
		return refused("the URL cannot be shown faithfully: %v", clipErr(err))
	}
	name, addr, err := spec.NormalizeHost(again.Hostname())
	if err != nil {
		return refused("the URL cannot be shown faithfully: %v", clipErr(err))
	}
	h := name
	if addr.IsValid() {
		h = addr.String()
		if addr.Is6() {
			h = "[" + h + "]"
		}
	}
	if h != p.Host || again.Hostname() != strings.Trim(p.Host, "[]") {
		return refused("the URL cannot be shown faithfully: its site reads as %q", clip(again.Hostname()))
	}
	return nil
}

// validScheme reports whether s is a URL scheme (RFC 3986 3.1).
func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// escapeRaw percent-escapes every byte of a raw query or fragment that is
// not printable ASCII, or is a space.
func escapeRaw(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Details are the lines the question shows under the URL: the site, and a
// warning for a URL that looks like another site or opens one on this
// computer or its network.
func (p *Page) Details() []string {
	site := "site: " + p.Host
	if p.IDN {
		site += " (an international name, shown in punycode)"
	}
	if def := (p.u.Scheme == "https" && p.Port == 443) || (p.u.Scheme == "http" && p.Port == 80); !def {
		site += ", port " + strconv.Itoa(p.Port)
	}
	out := []string{site}
	if p.User != "" {
		out = append(out, "careful: the URL starts with "+strconv.Quote(p.User)+"@, which is a user name, not the site: the site is "+p.Host)
	}
	if p.Addr.IsValid() {
		switch a := p.Addr; {
		case a.IsLoopback() || a.IsUnspecified():
			out = append(out, "careful: this page is on this computer, where your browser can reach what the sandbox cannot")
		case a.IsPrivate() || a.IsLinkLocalUnicast():
			out = append(out, "careful: this page is on your local network, where your browser can reach what the sandbox cannot")
		}
	} else if p.Host == "localhost" || strings.HasSuffix(p.Host, ".localhost") {
		out = append(out, "careful: this page is on this computer, where your browser can reach what the sandbox cannot")
	}
	return out
}

// URLValue returns the page's URL parsed (a copy).
func (p *Page) URLValue() *url.URL {
	c := *p.u
	return &c
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:40] + "..." + s[len(s)-20:]
	}
	return s
}

func clipErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return clip(err.Error())
}
