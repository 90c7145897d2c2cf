package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestOpenerArgs(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"/run/lnk/bin/xdg-open", "https://x/"}, "lnk sandbox open https://x/"},
		{[]string{"sensible-browser", "https://x/"}, "lnk sandbox open https://x/"},
		{[]string{"x-www-browser", "a", "b"}, "lnk sandbox open a b"},
		{[]string{"www-browser"}, "lnk sandbox open"},
		{[]string{"lnk", "sandbox", "list"}, ""},
		{[]string{"/usr/bin/lnk-sandbox"}, ""},
	} {
		got, ok := openerArgs(tc.in)
		if s := strings.Join(got, " "); s != tc.want || ok != (tc.want != "") {
			t.Errorf("openerArgs(%q) = %q, %v; want %q", tc.in, s, ok, tc.want)
		}
	}
}

// fakeProxy answers POST http://lnk.sandbox/open as the proxy and the
// open bridge would, with status and body.
func fakeProxy(t *testing.T, status int, body string) (url string, got *string) {
	t.Helper()
	var seen string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.String() != "http://lnk.sandbox/open" || r.Header.Get("Proxy-Authorization") == "" {
			t.Errorf("the opener sent %s %s (auth %q)", r.Method, r.URL, r.Header.Get("Proxy-Authorization"))
		}
		b, _ := io.ReadAll(r.Body)
		var req struct{ URL string }
		json.Unmarshal(b, &req)
		seen = req.URL
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return "http://sb1:secret@" + srv.Listener.Addr().String(), &seen
}

func TestOpenExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		code   int
		says   string
	}{
		{"opened", 200, `{"outcome":"opened","url":"https://x/"}`, ExitOpened, ""},
		{"note", 200, `{"outcome":"opened","note":"no oauth"}`, ExitOpened, "note: no oauth"},
		{"denied", 403, `{"outcome":"denied","message":"the page was not opened: the person said no"}`, ExitOpenDenied, "the person said no"},
		{"refused", 400, `{"outcome":"refused","message":"lnk refused to open the page: only http"}`, ExitOpenRefused, "only http"},
		{"taken", 409, `{"outcome":"refused","message":"port taken"}`, ExitOpenRefused, "port taken"},
		{"failed", 502, `{"outcome":"failed","message":"xdg-open failed"}`, ExitOpenFailed, "xdg-open failed"},
		{"no endpoint", 403, "lnk proxy: refused by the sandbox's spec: endpoint open not in network.endpoints\n", ExitOpenRefused, `add "open" to [network] endpoints`},
		{"no bridge", 404, "lnk proxy: no such route\n", ExitOpenFailed, "no open bridge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pu, seen := fakeProxy(t, tc.status, tc.body)
			t.Setenv("HTTP_PROXY", pu)
			t.Setenv("LNK_SANDBOX", "sb1")
			var out, errb bytes.Buffer
			code := run([]string{"/run/lnk/bin/xdg-open", "https://x/"}, strings.NewReader(""), &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.says) || out.Len() != 0 {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit %d saying %q", code, errb.String(), out.String(), tc.code, tc.says)
			}
			if *seen != "https://x/" {
				t.Errorf("the bridge got URL %q", *seen)
			}
		})
	}
}

func TestOpenOutsideASandbox(t *testing.T) {
	pu, seen := fakeProxy(t, 200, `{"outcome":"opened"}`)
	for _, env := range [][2]string{{"", ""}, {pu, ""}, {"", "sb1"}} {
		t.Setenv("HTTP_PROXY", env[0])
		t.Setenv("http_proxy", "")
		t.Setenv("LNK_SANDBOX", env[1])
		var out, errb bytes.Buffer
		code := run([]string{"lnk", "sandbox", "open", "https://x/"}, strings.NewReader(""), &out, &errb)
		if code != ExitOpenFailed || !strings.Contains(errb.String(), "only inside an lnk sandbox") {
			t.Errorf("HTTP_PROXY=%q LNK_SANDBOX=%q: exit %d, stderr %q", env[0], env[1], code, errb.String())
		}
	}
	if *seen != "" {
		t.Errorf("a proxy outside a sandbox was sent %q", *seen)
	}
	var out, errb bytes.Buffer
	code := run([]string{"xdg-open"}, strings.NewReader(""), &out, &errb)
	if code != ExitUsage {
		t.Errorf("xdg-open with no URL: exit %d", code)
	}
}
