package confine

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"lnk.dev/sandbox/spec"
)

// Paths inside the wall. /run is a fresh tmpfs, so nothing of the host's
// /run masks or is masked by them.
const (
	RunDir      = "/run/lnk"              // lnk's folder inside the sandbox
	InnerLnk    = RunDir + "/lnk"         // the lnk binary, read-only
	InnerSocket = RunDir + "/proxy.sock"  // the sandbox's proxy socket
	OpenerDir   = RunDir + "/bin"         // lnk's browser openers, first on PATH
	InnerOpener = OpenerDir + "/xdg-open" // BROWSER: lnk's opener
)

// Exit codes of init and the guard besides the command's own.
const (
	exitFailure  = 125 // lnk failed; the command did not run (or was stopped for safety)
	exitNoExec   = 126 // the command may not run here
	exitNotFound = 127 // the command does not exist
)

// OpenerNames are the browser openers inside the wall: links to the lnk
// binary, which opens a page through the open bridge when called by one
// of these names.
var OpenerNames = []string{"xdg-open", "sensible-browser", "x-www-browser", "www-browser"}

// ErrUnsupported is returned where this system has no wall.
var ErrUnsupported = errors.New("confine: no sandbox wall for this operating system")

// Request is what a wall needs to confine one command.
type Request struct {
	Policy      *spec.Policy
	Argv        []string // the command
	Env         []string // base environment for the command; confine adds HTTP_PROXY etc.
	Dir         string   // working dir inside; "" = Policy.Folder
	SandboxID   string
	Secret      string
	LnkPath     string // host path of the lnk binary, bound read-only at /run/lnk/lnk
	ProxySocket string // host path of the sandbox's proxy unix socket -> /run/lnk/proxy.sock
	ProxyPort   int    // loopback port inside the sandbox that init relays to the socket
	KeepSession bool   // true for `enter` (no --new-session)
	// BwrapPath is the bwrap program; "" looks it up on PATH ("bwrap" in
	// the generated argv).
	BwrapPath string
	// Weak runs the command without namespaces (Linux: no bubblewrap),
	// confined by Landlock and seccomp only, for machines where the wall
	// cannot stand. It enforces much less (see the package doc) and says
	// so every time it runs. Only ever set it on the person's explicit
	// request.
	Weak bool
}

// Command is what the caller runs: argv, environment and working folder.
type Command struct {
	Argv []string
	Env  []string
	Dir  string
}

func (r *Request) check() error {
	switch {
	case r == nil || r.Policy == nil:
		return errors.New("confine: no policy: resolve a spec first")
	case len(r.Argv) == 0:
		return errors.New("confine: no command to run: give one after --")
	case r.SandboxID == "" || r.Secret == "":
		return errors.New("confine: the sandbox has no id or secret: ask the daemon for a sandbox")
	case strings.ContainsAny(r.SandboxID, ":@/ \t\n"):
		return fmt.Errorf("confine: sandbox id %q has characters a proxy URL cannot carry", r.SandboxID)
	case r.ProxyPort <= 0 || r.ProxyPort > 65535:
		return fmt.Errorf("confine: proxy port %d is out of range: pick 1-65535", r.ProxyPort)
	case r.LnkPath == "" || r.ProxySocket == "":
		return errors.New("confine: the lnk binary and the proxy socket are both needed")
	}
	return nil
}

func (r *Request) dir() string {
	if r.Dir != "" {
		return r.Dir
	}
	return r.Policy.Folder
}

// ProxyURL is the proxy URL the sandbox's programs use:
// http://SandboxID:Secret@127.0.0.1:ProxyPort.
func (r *Request) ProxyURL() string {
	u := url.URL{Scheme: "http", User: url.UserPassword(r.SandboxID, r.Secret),
		Host: "127.0.0.1:" + strconv.Itoa(r.ProxyPort)}
	return u.String()
}

// ownVars are the variables the wall sets; the caller's values are dropped.
var ownVars = []string{
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "FTP_PROXY",
	"TMPDIR", "LNK_SANDBOX", "BROWSER", "GIT_SSH_COMMAND", "GIT_SSH",
	"GIT_TEMPLATE_DIR", "SSH_AUTH_SOCK", "GIT_CONFIG_COUNT",
}

// Environ returns the environment of the confined command: base without
// the variables the wall owns, plus the proxy, temp and helper variables.
func (r *Request) Environ() []string {
	var out []string
	for _, kv := range r.Env {
		name, _, _ := strings.Cut(kv, "=")
		if owned(name) {
			continue
		}
		out = append(out, kv)
	}
	pu := r.ProxyURL()
	for _, n := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		out = append(out, n+"="+pu, strings.ToLower(n)+"="+pu)
	}
	if r.Weak {
		// No /run/lnk: lnk is where it is on the host; init sets TMPDIR.
		return append(out,
			"NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1",
			"LNK_SANDBOX="+r.SandboxID,
			"GIT_SSH_COMMAND=ssh -o ProxyCommand='"+r.LnkPath+" sandbox connect %h %p'")
	}
	out = append(out,
		"NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1",
		"TMPDIR=/tmp",
		"LNK_SANDBOX="+r.SandboxID,
		"BROWSER="+InnerOpener,
		"GIT_SSH_COMMAND=ssh -o ProxyCommand='"+InnerLnk+" sandbox connect %h %p'",
		"GIT_TEMPLATE_DIR="+RunDir+"/git-template",
		// git ignores the placeholders, so `git add -A` never adds them.
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.excludesFile", "GIT_CONFIG_VALUE_0="+RunDir+"/gitignore",
	)
	return out
}

func owned(name string) bool {
	u := strings.ToUpper(name)
	for _, o := range ownVars {
		if u == o {
			return true
		}
	}
	return strings.HasPrefix(u, "GIT_CONFIG_KEY_") || strings.HasPrefix(u, "GIT_CONFIG_VALUE_")
}
