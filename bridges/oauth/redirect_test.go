package oauth

import (
	"net/url"
	"strings"
	"testing"
)

func TestRedirect(t *testing.T) {
	for _, tc := range []struct {
		page string
		want string // Addr, "" for none, "error: ..." for an error
	}{
		{"https://p.example/auth?redirect_uri=http%3A%2F%2Flocalhost%3A8085%2Fcallback", "localhost:8085"},
		{"https://p.example/auth?redirect_uri=http://127.0.0.1:1455/auth/callback&x=1", "127.0.0.1:1455"},
		{"https://p.example/auth?redirect_uri=http%3A%2F%2F%5B%3A%3A1%5D%3A9000%2F", "[::1]:9000"},
		{"https://p.example/auth?redirect_url=http://LOCALHOST.:7777/", "localhost:7777"},
		{"https://p.example/auth?redirect_uri=http://127.1:5000/", "127.0.0.1:5000"},
		{"https://p.example/auth?redirect_uri=http://0x7f000001:5000/", "127.0.0.1:5000"},
		{"https://p.example/auth?redirect_uri=http://localhost/cb", "localhost:80"},
		{"https://p.example/auth?redirect_uri=https://localhost:8085/", ""},
		{"https://p.example/auth?redirect_uri=http://example.com:8085/", ""},
		{"https://p.example/auth?redirect_uri=http://127.0.0.2:8085/", ""},
		{"https://p.example/auth?redirect_uri=http://localhost.evil.com:8085/", ""},
		{"https://p.example/auth?redirect_uri=urn:ietf:wg:oauth:2.0:oob", ""},
		{"https://p.example/auth?state=1", ""},
		{"https://p.example/auth?REDIRECT_URI=http://localhost:1/", ""},
		{"https://p.example/auth?redirect_uri=http://localhost:8085/&redirect_uri=http://localhost:8085/x", "localhost:8085"},
		{"https://p.example/auth?redirect_uri=http://localhost:8085/&redirect_url=http://127.0.0.1:9/", "error: two login callbacks"},
		{"https://p.example/auth?redirect_uri=http://localhost:0/", "error: not a number"},
		{"https://p.example/auth?redirect_uri=http://localhost:70000/", "error: not a number"},
	} {
		u, err := url.Parse(tc.page)
		if err != nil {
			t.Fatal(err)
		}
		cb, err := Redirect(u)
		got := ""
		switch {
		case err != nil:
			got = "error: " + err.Error()
		case cb != nil:
			got = cb.Addr()
		}
		if strings.HasPrefix(tc.want, "error: ") {
			if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, strings.TrimPrefix(tc.want, "error: ")) {
				t.Errorf("Redirect(%s) = %q, want %q", tc.page, got, tc.want)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("Redirect(%s) = %q, want %q", tc.page, got, tc.want)
		}
	}
}

// FuzzRedirect: a callback found is always on a loopback host and a real
// port, and its address reads back as that host.
func FuzzRedirect(f *testing.F) {
	for _, s := range []string{
		"redirect_uri=http://localhost:8085/", "redirect_uri=http://127.0.0.1:1/&redirect_url=http://[::1]:2/",
		"redirect_uri=http://0x7f.1:80/", "redirect_url=http%3A%2F%2Flocalhost%3A9%2F", "redirect_uri=%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		cb, err := Redirect(&url.URL{Scheme: "https", Host: "p.example", RawQuery: query})
		if err != nil || cb == nil {
			return
		}
		if cb.Port < 1 || cb.Port > 65535 {
			t.Fatalf("Redirect(%q): port %d", query, cb.Port)
		}
		switch cb.Host {
		case HostLocalhost, HostIPv4, HostIPv6:
		default:
			t.Fatalf("Redirect(%q): host %q is not loopback", query, cb.Host)
		}
		u, err := url.Parse("http://" + cb.Addr())
		if err != nil || loopbackHost(u.Hostname()) != cb.Host {
			t.Fatalf("Redirect(%q): address %q does not read back", query, cb.Addr())
		}
	})
}
