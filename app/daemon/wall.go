package daemon

import (
	"errors"

	"lnk.dev/sandbox/spec"
)

// wallRequest mirrors confine.Request (the contract); wallWrap hands it to
// confine.Wrap. It is an adapter so the daemon builds while the wall is
// being written.
type wallRequest struct {
	Policy      *spec.Policy
	Argv        []string
	Env         []string
	Dir         string
	SandboxID   string
	Secret      string
	LnkPath     string
	ProxySocket string
	ProxyPort   int
}

type wallCommand struct {
	Argv []string
	Env  []string
	Dir  string
}

var errNoWall = errors.New("the wall (package confine) is not built yet: this lnk cannot confine commands")

// wallWrap builds the confining command (a variable so tests can see the
// request).
var wallWrap = func(r *wallRequest) (*wallCommand, error) { return nil, errNoWall }
