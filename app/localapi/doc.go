// Package localapi serves the daemon's control API on the control socket:
// a sorted table of routes (see [Routes]) over a [Backend] the daemon
// implements.
//
// Before any route runs, a request must carry Host: apitype.Host and no
// Origin or Referer header; anything else is refused with 403, so a web
// page that finds a way to the socket gets nothing. Peers were already
// checked at accept by app/safesocket. Bodies are JSON, at most
// [MaxBody] bytes; POST bodies must say Content-Type: application/json.
//
// Routes (all under /v0/):
//
//	GET  status  -> apitype.Status
//	POST wrap    apitype.WrapRequest -> apitype.WrapResponse
//	GET  list    -> []apitype.Sandbox
//	POST stop    apitype.IDRequest -> apitype.IDsResponse
//	POST pause   apitype.IDRequest -> apitype.IDsResponse
//	POST resume  apitype.IDRequest -> apitype.IDsResponse
//	GET  log     ?sandbox=ID&follow=1 -> JSON Lines of apitype.LogRecord
//
// Failures answer an apitype.Error with a status that matches its code.
package localapi
