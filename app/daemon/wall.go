package daemon

import "lnk.dev/sandbox/confine"

// wallWrap builds the confining command (a variable so tests can see the
// request without a real wall).
var wallWrap = confine.Wrap

type (
	wallRequest = confine.Request
	wallCommand = confine.Command
)
