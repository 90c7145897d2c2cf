package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// Exit codes of `lnk sandbox open` (and of $BROWSER, xdg-open,
// sensible-browser, x-www-browser and www-browser inside a sandbox).
const (
	ExitOpened      = 0 // the page opened in the person's browser
	ExitOpenFailed  = 1 // it could not be asked or opened (no proxy, the browser failed)
	ExitOpenDenied  = 3 // the person said no, or nobody answered in time
	ExitOpenRefused = 4 // lnk refused it unasked: not http(s), malformed, its callback port taken, or the spec has no "open" endpoint
)

// openerNames are the names by which the lnk binary is the browser
// opener inside a sandbox (links in /run/lnk/bin, first on PATH).
var openerNames = []string{"xdg-open", "sensible-browser", "x-www-browser", "www-browser"}

// openerArgs turns a call of lnk by an opener's name into the open verb's
// command line; ok is false for any other name.
func openerArgs(args []string) ([]string, bool) {
	name := args[0]
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	for _, n := range openerNames {
		if name == n {
			return append([]string{"lnk", "sandbox", "open"}, args[1:]...), true
		}
	}
	return nil, false
}

// openTimeout bounds one page's request: the person's answer (two
// minutes by default) and the browser's start.
const openTimeout = 30 * time.Minute

func newOpenCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "open URL...",
		Short: "From inside a sandbox, open a page in the person's browser (asking them first)",
		Long: `Ask the person to open URL in their own browser, outside the sandbox, and
wait for the outcome. Inside a sandbox this is also $BROWSER, xdg-open,
sensible-browser, x-www-browser and www-browser. Only http:// and https://
pages open, each only after the person allows it in a dialog that shows
the whole URL. Needs "open" in the spec's [network] endpoints.

Exit codes: 0 opened; 1 failed (no proxy, or the browser could not be
started); 2 usage; 3 denied (the person said no, or nobody answered in
time); 4 refused by lnk unasked (not an http or https URL, malformed, the
login's callback port is taken on the computer, or the spec has no "open"
endpoint). With several URLs, the first code that is not 0.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			code := ExitOpened
			for _, u := range args {
				if k := openPage(c.Context(), u, c.ErrOrStderr()); k != ExitOpened && code == ExitOpened {
					code = k
				}
			}
			if code != ExitOpened {
				return &exitError{code: code}
			}
			return nil
		},
	}
}

// openResponse is the open bridge's answer (bridges/open.Response).
type openResponse struct {
	Outcome string `json:"outcome"`
	Message string `json:"message"`
	Note    string `json:"note"`
}

// openPage asks the sandbox's proxy to open page and returns the exit
// code, having said on stderr what went wrong.
func openPage(ctx context.Context, page string, stderr io.Writer) int {
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(stderr, "lnk: "+format+"\n", args...)
		return code
	}
	raw := os.Getenv("HTTP_PROXY")
	if raw == "" {
		raw = os.Getenv("http_proxy")
	}
	pu, err := url.Parse(raw)
	// LNK_SANDBOX too: never send the page to a proxy that is not lnk's.
	if os.Getenv("LNK_SANDBOX") == "" || raw == "" || err != nil || pu.Scheme != "http" || pu.Host == "" {
		return fail(ExitOpenFailed, "open: HTTP_PROXY does not name lnk's proxy: this opens pages only inside an lnk sandbox; outside, open %s yourself", page)
	}
	body, _ := json.Marshal(map[string]string{"url": page})
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://lnk.sandbox/open", bytes.NewReader(body))
	if err != nil {
		return fail(ExitOpenFailed, "open: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	cl := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	resp, err := cl.Do(req)
	if err != nil {
		return fail(ExitOpenFailed, "open: the sandbox's proxy did not answer (%v): is lnk's daemon running?", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var or openResponse
	if json.Unmarshal(data, &or) != nil || or.Outcome == "" {
		switch resp.StatusCode {
		case http.StatusForbidden:
			return fail(ExitOpenRefused, `open: this sandbox may not open pages: add "open" to [network] endpoints in its spec`)
		case http.StatusNotFound:
			return fail(ExitOpenFailed, "open: lnk's daemon has no open bridge: update lnk")
		}
		return fail(ExitOpenFailed, "open: the proxy answered %s: %s", resp.Status, strings.TrimSpace(string(data)))
	}
	switch or.Outcome {
	case "opened":
		if or.Note != "" {
			fmt.Fprintf(stderr, "lnk: note: %s\n", or.Note)
		}
		return ExitOpened
	case "denied":
		return fail(ExitOpenDenied, "open: %s", or.Message)
	case "refused":
		return fail(ExitOpenRefused, "open: %s", or.Message)
	}
	return fail(ExitOpenFailed, "open: %s", or.Message)
}
