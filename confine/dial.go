package confine

// DialRoute is the daemon's internal route by which init carries a
// connection into the sandbox's own loopback (a login's callback): the
// daemon sends {"cmd":"dial","host":H,"port":P,"token":T} on the session;
// init connects to H:P inside, then opens a new connection on the proxy's
// unix socket and sends
//
//	GET http://lnk.sandbox/dial HTTP/1.1
//	Upgrade: lnk-dial
//	Lnk-Dial-Token: T
//	[Lnk-Dial-Error: why, when H:P did not answer]
//
// and, on 101 Switching Protocols, copies both ways. The daemon accepts
// it only from init's own process (the socket's peer credentials) with
// the one-time token it sent on the session, which nothing else in the
// sandbox can read: the sandbox's programs reach the proxy only through
// the relay's handed-off TCP sockets, which carry no peer credentials.
const DialRoute = "dial"
