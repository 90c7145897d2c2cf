package proxy

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// serveConnect opens a tunnel for CONNECT host:port.
func (p *Proxy) serveConnect(w http.ResponseWriter, r *http.Request, rec *Record) {
	host, port, err := parseAuthority(r.RequestURI, 0)
	if err != nil {
		rec.Host, rec.Rule = clip(r.RequestURI), "bad request"
		p.refuse(w, r, rec, http.StatusBadRequest, "CONNECT target: "+err.Error())
		return
	}
	rec.Host, rec.Port = host, port
	if !p.authorized(r) {
		p.refuse(w, r, rec, http.StatusProxyAuthRequired, "")
		return
	}
	v, ok := p.admitRequest(w, r, rec, host, port)
	if !ok {
		return
	}
	up, ap, err := p.dialChecked(r.Context(), &v)
	if err != nil {
		rec.Error = err.Error()
		rec.Addr = ap.String()
		w.Header().Set("Connection", "close")
		http.Error(w, "lnk proxy: could not connect upstream", http.StatusBadGateway)
		p.log(rec)
		return
	}
	rec.Addr = ap.String()
	p.splice(w, rec, up)
}

// splice takes the client connection over from the HTTP server, answers
// 200 and tunnels.
func (p *Proxy) splice(w http.ResponseWriter, rec *Record, up net.Conn) {
	hc, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		rec.Error = "hijack: " + err.Error()
		p.log(rec)
		return
	}
	cc, ok := hc.(*clientConn)
	if !ok { // not ours: cannot happen, but never tunnel blind
		hc.Close()
		up.Close()
		rec.Error = "unexpected connection type"
		p.log(rec)
		return
	}
	cc.Conn.SetDeadline(time.Time{})
	if _, err := cc.Conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		cc.Close()
		up.Close()
		rec.Error = err.Error()
		p.log(rec)
		return
	}
	// Bytes the client sent after the CONNECT line (a TLS hello) are
	// already in the server's buffer: pass them on first.
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		m, err := up.Write(b)
		rec.Up += int64(m)
		if err != nil {
			cc.Close()
			up.Close()
			rec.Error = err.Error()
			p.log(rec)
			return
		}
	}
	upRaw := up
	if uc, ok := up.(*upstreamConn); ok {
		upRaw = uc.Conn
	}
	u, d, err := p.tunnel(cc.Conn, upRaw, cc, up)
	rec.Up += u
	rec.Down = d
	if err != nil && !isClosedErr(err) {
		rec.Error = err.Error()
	}
	p.log(rec)
}

func isClosedErr(err error) bool {
	return err == net.ErrClosed || strings.Contains(err.Error(), "use of closed network connection") ||
		strings.Contains(err.Error(), "connection reset by peer") || strings.Contains(err.Error(), "broken pipe")
}

// Handle serves http://lnk.sandbox/<route>/... (absolute-form, with the
// sandbox's credentials) to h. endpoint names the spec endpoint that gates
// the route ("open", "ask", "oauth"); "" is an internal route, reachable
// whenever the credentials are right. h sees the request unchanged but for
// Proxy-Authorization, which is removed; it may hijack the connection.
// PeerCred(r.Context()) gives the peer of a unix socket connection.
func (p *Proxy) Handle(route, endpoint string, h http.Handler) {
	route = strings.Trim(route, "/")
	p.mu.Lock()
	defer p.mu.Unlock()
	p.routes[route] = routeEntry{endpoint: endpoint, h: h}
}

// serveRoute serves a request to the proxy's own origin.
func (p *Proxy) serveRoute(w http.ResponseWriter, r *http.Request, rec *Record, port uint16) {
	rec.Host = OwnHost
	if r.URL.Scheme != "http" || port != 80 {
		rec.Rule = "bad request"
		p.refuse(w, r, rec, http.StatusBadRequest, "the proxy's own origin is http://"+OwnHost+"/")
		return
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if name == "health" && r.Method == http.MethodGet {
		rec.Decision, rec.Rule = Allow, "route health"
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		n, _ := w.Write([]byte("ok"))
		rec.Down = int64(n)
		p.log(rec)
		return
	}
	p.mu.Lock()
	rt, ok := p.routes[name]
	p.mu.Unlock()
	switch {
	case !ok:
		rec.Rule = "no route " + clip(name)
		p.refuse(w, r, rec, http.StatusNotFound, "no such route")
		return
	case rt.endpoint != "" && !p.cfg.Network.AllowsEndpoint(rt.endpoint):
		rec.Rule = "endpoint " + rt.endpoint + " not in network.endpoints"
		p.refuse(w, r, rec, http.StatusForbidden, "")
		return
	}
	if rt.endpoint != "" {
		if err := p.waitResume(r.Context()); err != nil {
			rec.Rule = err.Error()
			p.refuse(w, r, rec, http.StatusServiceUnavailable, err.Error())
			return
		}
	}
	rec.Decision, rec.Rule = Allow, "route "+name
	r.Header.Del("Proxy-Authorization")
	cw := &countingWriter{ResponseWriter: w}
	rt.h.ServeHTTP(cw, r)
	rec.Down = cw.n
	if cw.status >= 400 {
		// The route itself refused: the log says so, not "allow".
		rec.Decision = Deny
		rec.Rule = fmt.Sprintf("route %s answered %d", name, cw.status)
	}
	p.log(rec)
}
