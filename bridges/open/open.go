package open

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"lnk.dev/sandbox/bridges"
	"lnk.dev/sandbox/bridges/oauth"
	"lnk.dev/sandbox/dialogs"
	"lnk.dev/sandbox/proxy"
	"lnk.dev/sandbox/spec"
)

// Route is the route the bridge serves.
const Route = "open"

// maxBody bounds a request's body.
const maxBody = MaxURL + 1024

// Outcomes of a [Response].
const (
	Opened  = "opened"  // the page opened in the person's browser
	Denied  = "denied"  // the person said no, or nobody answered in time
	Refused = "refused" // lnk refused the page unasked: not http(s), malformed, its callback port taken
	Failed  = "failed"  // the person allowed it, but the browser could not be started
)

// Request is what the opener inside the sandbox sends.
type Request struct {
	// URL is the page to open.
	URL string `json:"url"`
}

// Response is the bridge's answer.
type Response struct {
	Outcome string `json:"outcome"`
	// Message says what happened, for the opener to print.
	Message string `json:"message,omitempty"`
	// URL is the page as shown and opened.
	URL string `json:"url,omitempty"`
	// CallbackPort is the host port lnk listens on for the page's login
	// callback, 0 when none.
	CallbackPort int `json:"callback_port,omitempty"`
	// Note is a warning the opener prints even when the page opened.
	Note string `json:"note,omitempty"`
}

// Bridge serves the open route.
type Bridge struct {
	// Asker asks the person about every page.
	Asker *dialogs.Asker
	// Open opens a URL in the person's browser, outside every sandbox,
	// with the daemon's own environment; nil is [System].
	Open func(ctx context.Context, url string) error
	// Relays holds the login callback ports (the oauth endpoint); nil
	// passes no callbacks in.
	Relays *oauth.Relays
}

// Register implements bridges.Bridge.
func (b *Bridge) Register(sb *bridges.Sandbox) {
	sb.Proxy.Handle(Route, spec.EndpointOpen, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, status := b.serve(sb, r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(resp)
	}))
}

// serve handles one request and returns the answer and its status.
func (b *Bridge) serve(sb *bridges.Sandbox, r *http.Request) (*Response, int) {
	start := time.Now()
	if r.Method != http.MethodPost {
		return &Response{Outcome: Refused, Message: `POST a JSON body {"url": "https://..."}`}, http.StatusMethodNotAllowed
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return &Response{Outcome: Failed, Message: "cannot read the request: " + err.Error()}, http.StatusBadRequest
	}
	var req Request
	if len(body) > maxBody {
		req.URL = string(body[:MaxURL+1]) // ParsePage refuses it as too long
	} else {
		dec := json.NewDecoder(strings.NewReader(string(body)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return &Response{Outcome: Refused, Message: `send {"url": "https://..."}`}, http.StatusBadRequest
		}
	}
	page, err := ParsePage(req.URL)
	if err != nil {
		b.log(sb, start, proxy.Record{Decision: proxy.Deny, Rule: "open: refused unasked", Host: dialogs.Elide(req.URL, 200), Error: err.Error()})
		return &Response{Outcome: Refused, Message: "lnk refused to open the page: " + err.Error()}, http.StatusBadRequest
	}
	return b.ask(sb, r.Context(), page, start)
}

// ask asks the person about page and opens it on yes.
func (b *Bridge) ask(sb *bridges.Sandbox, ctx context.Context, page *Page, start time.Time) (*Response, int) {
	relay, note, taken, err := b.reserve(sb, page)
	if err != nil {
		b.log(sb, start, b.pageRecord(page, proxy.Deny, "open: refused unasked", err))
		return &Response{Outcome: Refused, URL: page.URL, Message: "lnk refused to open the page: " + err.Error()}, http.StatusBadRequest
	}
	q := dialogs.Question{
		Sandbox: sb.Who,
		Bridge:  Route,
		Action:  "wants to open a page in your browser",
		Subject: page.URL,
		Details: page.Details(),
	}
	switch {
	case taken != nil:
		q.Action = "wants to open a page in your browser, which lnk refuses"
		q.Details = append([]string{"LNK REFUSES THIS PAGE, whatever you answer: " + taken.Error() + ". Stop that program (or let its login finish) and run the sandbox's login again."}, q.Details...)
	case relay != nil:
		cb := relay.Callback()
		q.Details = append(q.Details, fmt.Sprintf("its login answers on %s: lnk listens there for that one answer, passes it into the sandbox, then closes (after %s at most)", cb.Addr(), b.wait()))
	case note != "":
		q.Details = append(q.Details, note)
	}
	ans := b.Asker.Ask(ctx, q)
	if taken != nil {
		b.log(sb, start, b.pageRecord(page, proxy.Deny, "open: refused: its callback port is taken", taken))
		return &Response{Outcome: Refused, URL: page.URL, Message: "lnk refused to open the page: " + taken.Error() + ": stop that program and try again"}, http.StatusConflict
	}
	if !ans.Allowed() {
		if relay != nil {
			relay.Close("the page was not allowed")
		}
		why := "the person said no"
		if ans.Reason != "" {
			why = ans.Reason
		}
		b.log(sb, start, b.pageRecord(page, proxy.Deny, "open: "+string(ans.Choice)+" via "+ans.Via, nil))
		return &Response{Outcome: Denied, URL: page.URL, Message: "the page was not opened: " + why}, http.StatusForbidden
	}
	if relay != nil {
		cb := relay.Callback()
		relay.Start(page.URL, func(ctx context.Context) (net.Conn, error) {
			return sb.DialInside(ctx, cb.Host, cb.Port)
		}, sb.Log, sb.Done)
	}
	open := b.Open
	if open == nil {
		open = System
	}
	octx, cancel := context.WithTimeout(context.Background(), openWait+5*time.Second)
	defer cancel()
	if err := open(octx, page.URL); err != nil {
		if relay != nil {
			relay.Close("the browser could not be started")
		}
		b.log(sb, start, b.pageRecord(page, proxy.Deny, "open: allowed via "+ans.Via+", but the browser failed", err))
		return &Response{Outcome: Failed, URL: page.URL, Message: "the page was allowed but could not be opened: " + err.Error()}, http.StatusBadGateway
	}
	b.log(sb, start, b.pageRecord(page, proxy.Allow, "open: opened via "+ans.Via, nil))
	resp := &Response{Outcome: Opened, URL: page.URL, Note: note}
	if relay != nil {
		resp.CallbackPort = relay.Callback().Port
	}
	return resp, http.StatusOK
}

// reserve finds the page's login callback and, where the sandbox has a
// loopback of its own and may receive callbacks, listens on its port.
// taken is set when the port cannot be had; note says why a callback
// will not be passed in; err refuses the page outright.
func (b *Bridge) reserve(sb *bridges.Sandbox, page *Page) (relay *oauth.Relay, note string, taken *oauth.PortError, err error) {
	cb, err := oauth.Redirect(page.URLValue())
	if err != nil || cb == nil {
		return nil, "", nil, err
	}
	switch {
	case sb.DialInside == nil:
		return nil, "", nil, nil // the sandbox listens on this computer's loopback itself
	case b.Relays == nil || !sb.Policy.Network.AllowsEndpoint(spec.EndpointOAuth):
		return nil, fmt.Sprintf("its login answers on %s, which this sandbox cannot receive: its spec's network.endpoints has no %q", cb.Addr(), spec.EndpointOAuth), nil, nil
	}
	r, err := b.Relays.Reserve(sb.Who.ID, cb)
	var pe *oauth.PortError
	if errors.As(err, &pe) {
		return nil, "", pe, nil
	}
	return r, "", nil, err
}

func (b *Bridge) wait() time.Duration {
	if b.Relays != nil && b.Relays.Wait > 0 {
		return b.Relays.Wait
	}
	return oauth.DefaultWait
}

func (b *Bridge) pageRecord(p *Page, decision, rule string, err error) proxy.Record {
	r := proxy.Record{Host: p.Host, Port: uint16(p.Port), Decision: decision, Rule: rule + ": " + dialogs.Elide(p.URL, 300)}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

func (b *Bridge) log(sb *bridges.Sandbox, start time.Time, r proxy.Record) {
	if sb.Log == nil {
		return
	}
	r.Time, r.Proto = start, proxy.ProtoOpen
	r.Duration = time.Since(start).Milliseconds()
	sb.Log(r)
}
