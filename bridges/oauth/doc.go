// Package oauth passes a login's localhost callback into a sandbox whose
// loopback is its own (Linux): the port on the host where the person's
// browser sends the login's answer.
//
// [Redirect] finds the callback a page names: its redirect_uri (or
// redirect_url) query parameter, when that is http:// on localhost,
// 127.0.0.1 or [::1] (spelled any way a browser reads them: case, a
// trailing dot, 127.1, 0x7f000001). A page naming two different loopback
// callbacks is refused. https callbacks and other hosts are not relayed.
//
// [Relays.Reserve] listens on exactly that port on the host's loopback
// (127.0.0.1, [::1], or both for localhost where the computer has IPv6):
// one port per page, never a range, never a port another program or
// another sandbox's page holds ([PortError]). A new page from the same
// sandbox on the same port (a login run again) replaces the old one.
// [Relay.Start], once the person allowed the page, serves the port: the
// first HTTP request goes through the sandbox's init into the sandbox's
// own loopback on the same port, its response goes back to the browser,
// and the port closes; a second request (another connection already
// open) gets 410 Gone, and later ones find nothing listening. With no
// request the port closes after [DefaultWait] (five minutes), and at
// once when the sandbox ends.
//
// The request passes without the Cookie and Authorization headers (a
// browser sends every localhost cookie of the person's other local
// programs: cookies are not port-scoped), and the response without
// Set-Cookie (the sandbox may not plant cookies on the person's
// localhost).
//
// Everything is logged on the sandbox's log (proto "oauth"): the page and
// port when the port opens, the request that passed (method and path,
// never the query, which holds the login's code) or was refused, and why
// the port closed.
//
// The way in is the daemon's: it sends init a "dial" command on the
// session with a one-time token, init connects inside and brings the
// connection on the proxy's internal dial route, which takes it only from
// init's own process (see confine.DialRoute).
package oauth
