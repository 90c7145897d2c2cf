package open

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/spec"
)

func TestParsePageRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "no URL"},
		{"file:///etc/passwd", "only http:// and https://"},
		{"javascript:alert(1)", "only http:// and https://"},
		{"JavaScript:alert(1)", "only http:// and https://"},
		{"data:text/html,<script>x</script>", "only http:// and https://"},
		{"vscode://open?x=1", "only http:// and https://"},
		{"slack://channel", "only http:// and https://"},
		{"ftp://example.com/", "only http:// and https://"},
		{"/etc/passwd", "not a URL"},
		{"example.com", "not a URL"},
		{"http:example.com", "no site"},
		{"http:///path", "no site"},
		{"https://exa mple.com/", "malformed"},
		{"https://example.com/\x00", "control character"},
		{"https://example.com/a\nb", "control character"},
		{"https://example.com\\@good.com/", "backslash"},
		{"http://evil.com\\.good.com/", "backslash"},
		{"https://ex_ample..com/", "not a valid host name"},
		{"https://[fe80::1%25eth0]/", "zone"},
		{"https://example.com:99999/", "port"},
		{"https://ex%61mple.com/", "malformed"},
		{"https://example.com:0/", "port"},
		{"https://example.com:080/", "port"},
		{"https://" + strings.Repeat("a", MaxURL), "over lnk's limit"},
	} {
		_, err := ParsePage(tc.in)
		var re *RefusedError
		if !errors.As(err, &re) {
			t.Errorf("ParsePage(%q) = %v, want a refusal", tc.in, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePage(%q) = %q, want it to say %q", tc.in, err, tc.want)
		}
	}
}

func TestParsePageCanonical(t *testing.T) {
	for _, tc := range []struct{ in, url, host string }{
		{"https://example.com/", "https://example.com/", "example.com"},
		{"  HTTPS://Example.COM./a?b=c#d \n", "https://example.com/a?b=c#d", "example.com"},
		{"https://example.com:443/x", "https://example.com/x", "example.com"},
		{"http://example.com:8080/x", "http://example.com:8080/x", "example.com"},
		{"https://bücher.example/", "https://xn--bcher-kva.example/", "xn--bcher-kva.example"},
		{"https://аррӏе.com/", "https://xn--80ak6aa92e.com/", "xn--80ak6aa92e.com"},
		{"http://0x7f.1:8000/", "http://127.0.0.1:8000/", "127.0.0.1"},
		{"http://2130706433/", "http://127.0.0.1/", "127.0.0.1"},
		{"http://[::1]:9000/", "http://[::1]:9000/", "[::1]"},
		{"http://[::ffff:10.0.0.1]/", "http://10.0.0.1/", "10.0.0.1"},
		{"https://user:pw@example.com/", "https://user:pw@example.com/", "example.com"},
		{"https://good.com@evil.com/", "https://good.com@evil.com/", "evil.com"},
		{"https://example.com/é?q=é#é", "https://example.com/%C3%A9?q=%C3%A9#%C3%A9", "example.com"},
		{"https://example.com/?q=a b", "https://example.com/?q=a%20b", "example.com"},
		{"https://good.com/ https://evil.com/", "https://good.com/%20https://evil.com/", "good.com"},
		{"https://example.com/?q=\u202eevil", "https://example.com/?q=%E2%80%AEevil", "example.com"},
		{"https://accounts.example/o/oauth2/auth?redirect_uri=http%3A%2F%2Flocalhost%3A8085%2F&state=x",
			"https://accounts.example/o/oauth2/auth?redirect_uri=http%3A%2F%2Flocalhost%3A8085%2F&state=x", "accounts.example"},
	} {
		p, err := ParsePage(tc.in)
		if tc.url == "" {
			if err == nil {
				t.Errorf("ParsePage(%q) = %q, want a refusal", tc.in, p.URL)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParsePage(%q): %v", tc.in, err)
			continue
		}
		if p.URL != tc.url || p.Host != tc.host {
			t.Errorf("ParsePage(%q) = %q (site %q), want %q (site %q)", tc.in, p.URL, p.Host, tc.url, tc.host)
		}
	}
}

func TestDetailsWarn(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://bücher.example/", "international name, shown in punycode"},
		{"https://good.com@evil.com/", `"good.com"@, which is a user name, not the site: the site is evil.com`},
		{"http://127.0.0.1:631/admin", "on this computer"},
		{"http://localhost:8888/", "on this computer"},
		{"http://192.168.1.1/", "on your local network"},
		{"https://example.com:8443/", "site: example.com, port 8443"},
	} {
		p, err := ParsePage(tc.in)
		if err != nil {
			t.Fatalf("ParsePage(%q): %v", tc.in, err)
		}
		if d := strings.Join(p.Details(), "\n"); !strings.Contains(d, tc.want) {
			t.Errorf("details of %q:\n%s\nwant %q", tc.in, d, tc.want)
		}
	}
}

// shownQuestion is the question the bridge asks about p, as text.
func shownQuestion(p *Page) string {
	q := &dialogs.Question{Sandbox: dialogs.Sandbox{ID: "sb1", Name: "tool"}, Bridge: Route,
		Action: "wants to open a page in your browser", Subject: p.URL, Details: p.Details()}
	return dialogs.Text(q)
}

// subjectOf joins the wrapped subject lines of a question's text back.
func subjectOf(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "    ") {
			b.WriteString(l[4:])
		}
	}
	return b.String()
}

// FuzzParsePage: whatever the input, a page that passes is shown whole in
// plain ASCII, and what is shown names the site the browser will go to.
func FuzzParsePage(f *testing.F) {
	for _, s := range []string{
		"https://example.com/", "https://good.com@evil.com/", "https://bücher.example/x?y=ü#z",
		"http://0x7f.1/", "https://[::1]:8080/", "https://good.com%2F@evil.com/",
		"https://evil.com\u202e/moc.doog", "https://evil.com#@good.com", "https://evil.com?@good.com",
		"https://ｇoogle.com/", "https://a.b.c:1/%2e%2e/", "HTTP://User:Pass@Host.Example:0080/",
		"javascript:alert(1)", "https://x.com/?redirect_uri=http://localhost:1/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ParsePage(in)
		if err != nil {
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("ParsePage(%q): an error that is not a refusal: %v", in, err)
			}
			return
		}
		for i := 0; i < len(p.URL); i++ {
			if c := p.URL[i]; c <= ' ' || c >= 0x7f || c == '\\' {
				t.Fatalf("ParsePage(%q).URL = %q holds byte 0x%02X", in, p.URL, c)
			}
		}
		// The site, as the URL that opens reads to a parser.
		u, err := url.Parse(p.URL)
		if err != nil {
			t.Fatalf("ParsePage(%q).URL = %q does not parse: %v", in, p.URL, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("ParsePage(%q) opens scheme %q", in, u.Scheme)
		}
		name, addr, err := spec.NormalizeHost(u.Hostname())
		if err != nil {
			t.Fatalf("ParsePage(%q).URL = %q has site %q: %v", in, p.URL, u.Hostname(), err)
		}
		real := name
		if addr.IsValid() {
			real = strings.Trim(p.Host, "[]")
			if addr.String() != real {
				t.Fatalf("ParsePage(%q): site %q, but the URL goes to %s", in, p.Host, addr)
			}
		} else if name != p.Host {
			t.Fatalf("ParsePage(%q): site %q, but the URL goes to %q", in, p.Host, name)
		}
		// The site stands right after the scheme (and user name): nothing
		// before it can pass for it.
		prefix := u.Scheme + "://"
		if u.User != nil {
			prefix += u.User.String() + "@"
		}
		if !strings.HasPrefix(p.URL, prefix+p.Host) {
			t.Fatalf("ParsePage(%q).URL = %q does not start with %q", in, p.URL, prefix+p.Host)
		}
		// The dialog shows the URL whole, unchanged, and the site on a
		// line of its own.
		text := shownQuestion(p)
		if got := subjectOf(text); got != p.URL {
			t.Fatalf("ParsePage(%q): the dialog shows %q, but %q opens", in, got, p.URL)
		}
		if !strings.Contains(text, "\nsite: "+real) && !strings.Contains(text, "\nsite: ["+real+"]") {
			t.Fatalf("ParsePage(%q): the dialog does not name the site %q:\n%s", in, real, text)
		}
		if p.User != "" && !strings.Contains(text, "the site is "+p.Host) {
			t.Fatalf("ParsePage(%q): a URL with a user name, and no warning:\n%s", in, text)
		}
		for _, r := range text {
			if r != '\n' && (r < ' ' || r > '~') {
				t.Fatalf("ParsePage(%q): the dialog text holds %U", in, r)
			}
		}
	})
}
