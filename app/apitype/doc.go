// Package apitype holds the types that travel on the control socket
// between the CLI (app/client) and the daemon (app/localapi), and the
// per-user paths both agree on. It imports only the standard library and
// spec.
//
// The wire is HTTP/1.1 with JSON bodies on the control socket. Every
// request carries Host: [Host]; the daemon refuses any other Host and any
// request with an Origin or Referer header (a browser tricked into
// talking to the socket). A failed request answers a non-2xx status with
// an [Error] body. Routes live under /v0/; see app/localapi.
package apitype
