package proxy

import (
	"bufio"
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"strings"
	"time"
)

// serveHTTP is the HTTP side: CONNECT, absolute-form requests, and routes
// on the proxy's own origin.
func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &Record{Time: time.Now(), Proto: ProtoHTTP, Decision: Deny}
	if r.Method == http.MethodConnect {
		rec.Proto = ProtoConnect
		p.serveConnect(w, r, rec)
		return
	}
	host, port, err := checkAbsolute(r)
	if err != nil {
		rec.Host, rec.Rule = clip(r.URL.Host), "bad request"
		p.refuse(w, r, rec, http.StatusBadRequest, err.Error())
		return
	}
	rec.Host, rec.Port = host, port
	if !p.authorized(r) {
		p.refuse(w, r, rec, http.StatusProxyAuthRequired, "")
		return
	}
	if isOwnOrigin(host) {
		rec.Proto = ProtoRoute
		p.serveRoute(w, r, rec, port)
		return
	}
	if r.URL.Scheme != "http" {
		rec.Rule = "bad request"
		p.refuse(w, r, rec, http.StatusBadRequest, "the proxy forwards http:// URLs; for https:// use CONNECT")
		return
	}
	v, ok := p.admitRequest(w, r, rec, host, port)
	if !ok {
		return
	}
	cw := &countingWriter{ResponseWriter: w}
	body := &countingBody{ReadCloser: r.Body}
	r.Body = body
	ctx := context.WithValue(r.Context(), verdictKey{}, &v)
	ctx = context.WithValue(ctx, recordKey{}, rec)
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { rec.Addr = i.Conn.RemoteAddr().String() },
	})
	p.rp.ServeHTTP(cw, r.WithContext(ctx))
	rec.Up, rec.Down = body.n, cw.n
	p.log(rec)
}

// checkAbsolute checks an absolute-form request and returns its host and
// port. The Host header of such a request is ignored and replaced by the
// URL's (RFC 9112 3.2.2; Go's server already dropped it), so what is
// checked is what is forwarded.
func checkAbsolute(r *http.Request) (string, uint16, error) {
	u := r.URL
	if !u.IsAbs() || u.Host == "" {
		return "", 0, errors.New("the proxy takes absolute-form requests (GET http://host/path)")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", 0, errors.New("the proxy forwards http:// URLs")
	}
	if u.Opaque != "" {
		return "", 0, errors.New("the URL has no path")
	}
	def := uint16(80)
	if u.Scheme == "https" {
		def = 443
	}
	return parseAuthority(u.Host, def)
}

// isOwnOrigin reports whether host names the proxy's own origin.
func isOwnOrigin(host string) bool { return strings.EqualFold(strings.TrimSuffix(host, "."), OwnHost) }

type verdictKey struct{}
type recordKey struct{}

// transportDial is the Transport's dial: it dials the addresses the
// request's verdict checked, or decides anew when there is none.
func (p *Proxy) transportDial(ctx context.Context, network, addr string) (net.Conn, error) {
	v, _ := ctx.Value(verdictKey{}).(*verdict)
	if v == nil {
		host, port, err := parseAuthority(addr, 0)
		if err != nil {
			return nil, err
		}
		nv := p.decide(ctx, host, port)
		if !nv.allow {
			return nil, errors.New("refused: " + nv.rule)
		}
		v = &nv
	}
	c, _, err := p.dialChecked(ctx, v)
	return c, err
}

// rewrite shapes the outgoing request: the URL as asked, Host from it.
// ReverseProxy has already removed hop-by-hop headers (Connection and what
// it names, Proxy-Authorization, Proxy-Connection, Keep-Alive, TE,
// Trailer, Transfer-Encoding, Upgrade unless upgrading) and Forwarded /
// X-Forwarded-*; the proxy adds none.
func rewrite(pr *httputil.ProxyRequest) {
	pr.Out.Host = ""
	pr.Out.Header.Del("Proxy-Authorization")
	pr.Out.Header.Del("Proxy-Connection")
	pr.Out.RequestURI = ""
}

func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	if rec, ok := r.Context().Value(recordKey{}).(*Record); ok {
		rec.Error = err.Error()
	}
	if errors.Is(err, context.Canceled) {
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	io.WriteString(w, "lnk proxy: the upstream server did not answer\n")
}

// authorized checks Proxy-Authorization: Basic SandboxID:Secret, in
// constant time.
func (p *Proxy) authorized(r *http.Request) bool {
	h := r.Header.Get("Proxy-Authorization")
	scheme, b64, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return false
	}
	user, pass, _ := strings.Cut(string(raw), ":")
	return p.credentialsOK(user, pass)
}

// credentialsOK compares both halves in constant time, always both.
func (p *Proxy) credentialsOK(user, pass string) bool {
	u := subtle.ConstantTimeCompare([]byte(user), []byte(p.cfg.SandboxID))
	s := subtle.ConstantTimeCompare([]byte(pass), []byte(p.cfg.Secret))
	return u&s == 1
}

// refuse answers with an error status and logs the refusal.
func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, rec *Record, code int, msg string) {
	rec.Decision = Deny
	switch code {
	case http.StatusProxyAuthRequired:
		rec.Rule = "credentials"
		w.Header().Set("Proxy-Authenticate", `Basic realm="lnk sandbox"`)
		msg = "lnk proxy: proxy credentials missing or wrong"
	case http.StatusForbidden:
		if msg == "" {
			msg = "lnk proxy: refused by the sandbox's spec: " + rec.Rule
		}
	default:
		msg = "lnk proxy: " + msg
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(code)
	io.WriteString(w, strings.ToValidUTF8(msg, "?")+"\n")
	p.log(rec)
}

// clip bounds a client-supplied string for the log.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300]
	}
	return s
}

// countingWriter counts the response body bytes and keeps the status.
type countingWriter struct {
	http.ResponseWriter
	n      int64
	status int // 0 until the handler answers (and for a hijacked connection)
}

func (c *countingWriter) WriteHeader(code int) {
	if c.status == 0 && code >= 200 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach Flush and Hijack.
func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// Hijack lets route handlers take the connection over.
func (c *countingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(c.ResponseWriter).Hijack()
}

// Flush sends what is buffered.
func (c *countingWriter) Flush() { http.NewResponseController(c.ResponseWriter).Flush() }

// countingBody counts the request body bytes.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (c *countingBody) Read(b []byte) (int, error) {
	n, err := c.ReadCloser.Read(b)
	c.n += int64(n)
	return n, err
}

// admitRequest waits out a pause, then decides host:port for an HTTP request
// (CONNECT or absolute-form). A refusal is answered and logged here; on
// allow, rec is marked allowed and the verdict holds the checked
// addresses to dial.
func (p *Proxy) admitRequest(w http.ResponseWriter, r *http.Request, rec *Record, host string, port uint16) (verdict, bool) {
	if err := p.waitResume(r.Context()); err != nil {
		rec.Rule = err.Error()
		p.refuse(w, r, rec, http.StatusServiceUnavailable, err.Error())
		return verdict{}, false
	}
	v := p.decide(r.Context(), host, port)
	rec.Host, rec.Rule, rec.Error = v.host, v.rule, v.err
	if !v.allow {
		p.refuse(w, r, rec, http.StatusForbidden, "")
		return v, false
	}
	rec.Decision = Allow
	return v, true
}
