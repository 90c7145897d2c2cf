// Package proxy is a sandbox's one way out: an HTTP and SOCKS5 proxy on one
// listener, behind the sandbox's credentials, that decides every
// connection by the sandbox's [spec.NetworkPolicy], logs it, and serves a
// table of routes on its own origin, http://lnk.sandbox/.
//
// # One listener, two protocols
//
// [Proxy.Serve] takes a unix socket (Linux sandboxes) or a loopback TCP
// listener. It reads one byte: 0x05 starts SOCKS5, anything else is HTTP,
// served by net/http: CONNECT host:port, absolute-form requests
// (GET http://host/path, forwarded by httputil.ReverseProxy with Rewrite),
// and routes on http://lnk.sandbox/. GET http://lnk.sandbox/health answers
// "ok" to any client with the credentials.
//
// On a unix socket the first byte may also be [HandOffByte] with one TCP
// socket attached (SCM_RIGHTS): init's relay inside a Linux sandbox hands
// over each client connection it accepts, the proxy answers HandOffByte and
// serves that socket itself, so data crosses one proxy hop rather than the
// relay's copy too. The handed-off client then speaks SOCKS5 or HTTP and
// needs the credentials like any other; it has no unix peer credentials,
// so internal routes that need them (the daemon's /session) refuse it.
// Anything else sent with descriptors is refused, logged, and the
// descriptors closed.
//
// SOCKS5 is this package's own small server (socks.go), not
// things-go/go-socks5: that library resolves names before it asks its
// rules (a lookup for every refused name), hands its dialer a string to
// resolve again, and copies through its own buffers. Ours reads the
// greeting, RFC 1929 username/password (required; no other method is
// accepted) and CONNECT (BIND and UDP ASSOCIATE are refused), then uses
// the same decision, dial and splice as CONNECT. Its parsers are fuzzed.
//
// # Deciding
//
// Every protocol asks one function, decide: the host is normalised once
// with [spec.NormalizeHost] (case, trailing dot, IDN, percent-escapes, the
// inet_aton spellings of IPv4), a name is checked with CheckName, and only
// an allowed name is resolved, on the host. Every resolved address is then
// checked with CheckAddr, and an address of one of this machine's
// interfaces is refused too unless [network.lan] names it. If any address
// is refused the name is refused (a name that points inward and outward is
// not to be trusted). The proxy dials the checked addresses, never the
// name, so there is no DNS-rebinding window. An address literal passes
// only when [network.lan] names it. Mode "host" passes everything and still
// logs. lnk.sandbox itself is never dialled.
//
// # Credentials
//
// HTTP needs Proxy-Authorization: Basic SandboxID:Secret (else 407 with
// Proxy-Authenticate), SOCKS5 the same pair by RFC 1929 (else the method
// or the auth is refused). Both halves are compared in constant time.
// Route handlers never see Proxy-Authorization, and no log record holds
// a header, so the secret never reaches the log.
//
// # HTTP hygiene
//
// Request headers have a 10 s deadline and a 64 KiB limit; keep-alive
// connections idle for 2 minutes close. Hop-by-hop headers (Connection and
// what it names, Proxy-Authorization, Proxy-Connection, Keep-Alive, TE,
// Trailer, Transfer-Encoding, Upgrade) are stripped by ReverseProxy, and no
// Forwarded or X-Forwarded-For is added. net/http refuses differing
// Content-Length headers, any Transfer-Encoding but chunked, and obsolete
// line folding; a request with both Transfer-Encoding: chunked and
// Content-Length is read as chunked and forwarded with the Content-Length
// removed (RFC 9112 6.3, what an intermediary must do), so the request
// sent upstream has one unambiguous framing and nothing can be smuggled
// behind it. In the same way, the Host header of an absolute-form request
// is replaced by the URL's host (RFC 9112 3.2.2): the host checked is the
// host forwarded. A CONNECT target must be host:port. https:// absolute
// URLs are refused (use CONNECT).
//
// # Tunnels
//
// CONNECT and SOCKS5 tunnels copy with io.Copy between the raw
// *net.TCPConn / *net.UnixConn, so Linux splices them, with no per-byte
// work and two goroutines per tunnel. (Measured on Linux: splicing wins
// when one side is a unix socket, the sandbox's case; between two TCP
// sockets a large user-space buffer was faster, but costs its memory per
// idle tunnel, so splice stays.) A tunnel that moves no byte either way is
// closed after 10 to 20 minutes (deadlines are renewed every 10 minutes,
// never per read). At most 4096 client connections are open per sandbox;
// more are refused and logged.
//
// # Stop and pause
//
// [Proxy.Stop] closes every open connection of the sandbox (client,
// upstream, hijacked) at once and refuses new ones for good.
// [Proxy.Pause] holds new connections and new requests (up to 256, each
// up to 2 minutes; beyond that they are refused with [ErrPaused]) until
// [Proxy.Resume]; open tunnels go on. Internal routes (endpoint "") on
// open connections are not held, so the daemon's session keeps working.
//
// # The log
//
// One JSON Lines [Record] per connection (CONNECT, SOCKS5) or request
// (HTTP, route), written to a [Log]: proxy.log in a 0700 folder, rotated
// by size into proxy.log.1 … proxy.log.4. JSON escapes every control
// character, so a host name cannot forge a line. [ReadLog] reads and
// follows it for `lnk sandbox log`. A connection that closes before
// sending its first byte is not logged. A route request is logged as
// allowed unless its handler answers 400 or above: then it is a refusal,
// "route NAME answered STATUS" (the bridge logs its own reason too).
//
// The proxy trusts the socket's permissions and the secret to keep other
// users out; [PeerCred] gives route handlers the peer of a unix socket
// connection (the daemon's session uses it to learn init's pid).
package proxy
