// Package open is the bridge by which a program in a sandbox shows the
// person a page: their browser opens it outside the sandbox, with their
// cookies and logins, only after they allow that one page.
//
// # Inside
//
// Inside a Linux sandbox, $BROWSER is /run/lnk/bin/xdg-open, and
// xdg-open, sensible-browser, x-www-browser and www-browser (links to the
// lnk binary in /run/lnk/bin, first on PATH) are lnk's opener: `lnk
// sandbox open URL`. It POSTs {"url": "..."} to http://lnk.sandbox/open
// through the sandbox's proxy (HTTP_PROXY, with the sandbox's
// credentials), gated by network.endpoints = ["open"], and waits. The
// answer is a [Response]: {"outcome": "opened"|"denied"|"refused"|
// "failed", "message", "url", "callback_port", "note"}; the opener exits
// 0 opened, 1 failed, 3 denied, 4 refused (see app/cli).
//
// # What opens
//
// [ParsePage] lets only well-formed http:// and https:// URLs with a site
// through. file:, javascript:, data:, other programs' schemes, relative
// or malformed URLs, URLs over [MaxURL] bytes, control characters and
// backslashes (which browsers read as /, and which can hide the site) are
// refused unasked, said to the opener and logged. A URL that passes is
// rebuilt in one plain printable-ASCII form: the host in punycode (an
// address in its one plain spelling, so http://0x7f.1/ is shown and opened
// as http://127.0.0.1/), a user name before an @ kept and shown, every
// other byte outside printable ASCII percent-escaped. That form is both
// what the dialog shows and what the browser gets: what the person reads
// is what opens. A native fuzzer checks that no input gives a dialog text
// whose URL differs from what opens, or whose "site:" line is not the
// site the URL goes to.
//
// # Asking
//
// Every page asks, through the daemon's Asker (dialog, terminal, queue),
// showing the whole URL (wrapped, never cut) and under it the site on a
// line of its own, with warnings for a user name before the @ (the
// classic https://bank.example@evil.example/), an international name
// (shown in punycode) and a page on this computer or its network (where
// the person's browser reaches what the sandbox cannot). There is no
// "always": a URL on any site can carry data out, so no host is allowed
// in advance. On yes the page opens with [System] (xdg-open on Linux,
// open on macOS, the URL handler on Windows; the daemon can be given
// another opener, as tests give a headless browser) in the daemon's own
// environment, never the sandbox's.
//
// # Logins (the oauth endpoint)
//
// A page whose redirect_uri or redirect_url is http://localhost:PORT,
// 127.0.0.1 or [::1] is a login that answers on the sandbox's loopback,
// which on Linux is the sandbox's own. When the spec's endpoints hold
// "oauth", the bridge reserves that port on the host (package oauth)
// before it asks, says in the question that lnk will listen there, starts
// the relay on yes and closes it on no. A port another program holds is
// refused, never shared (that program would get the login's code): the
// question still shows, saying in capitals that lnk refuses the page
// whatever the answer, so the person knows why the login fails and a
// sandbox cannot probe the host's ports unseen, and the opener gets
// "refused". Without the oauth endpoint the page may still open, and the
// opener is told (note) that the callback will not reach the sandbox.
// On macOS and Windows the sandbox listens on the computer's loopback
// itself, so nothing is relayed.
package open
