package apitype

import (
	"errors"
	"time"

	"lnk.dev/sandbox/spec"
)

// Host is the Host header every control request carries.
const Host = "lnk-daemon.sock"

// Routes of the control API.
const (
	PathStatus = "/v0/status"
	PathWrap   = "/v0/wrap"
	PathList   = "/v0/list"
	PathStop   = "/v0/stop"
	PathPause  = "/v0/pause"
	PathResume = "/v0/resume"
	PathLog    = "/v0/log"
)

// States of a sandbox.
const (
	StateStarting = "starting" // wrapped; init has not opened its session yet
	StateRunning  = "running"
	StatePaused   = "paused"
	StateStopped  = "stopped" // stopped by `lnk sandbox stop`
	StateExited   = "exited"  // the command ended; see ExitCode
)

// WrapRequest asks the daemon to register a sandbox and build the command
// that runs Argv inside it.
type WrapRequest struct {
	// Name is the sandbox's display name; "" names it after the command.
	Name string `json:"name,omitempty"`
	// Policy is the spec as resolved by the caller (its HOME, folder and
	// PATH).
	Policy *spec.Policy `json:"policy"`
	// Argv is the command to run inside.
	Argv []string `json:"argv"`
	// Env is the base environment of the command; the wall adds the proxy
	// variables.
	Env []string `json:"env"`
	// Dir is the working directory inside; "" is the policy's folder.
	Dir string `json:"dir,omitempty"`
	// KeepSession keeps the caller's terminal session (no new session
	// inside the wall), so a shell has job control and Ctrl-C reaches the
	// command from the terminal. Only `enter` (an SSH session, whose
	// terminal nothing else reads) sets it; the seccomp filter's TIOCSTI
	// ban is what keeps a kept terminal safe.
	KeepSession bool `json:"keep_session,omitempty"`
}

// WrapResponse is the confining command: run Argv with exactly Env (not
// merged with anything) in Dir. It is also the stable JSON printed by
// `lnk sandbox wrap --json`.
type WrapResponse struct {
	ID   string   `json:"id"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
}

// Sandbox is one entry of the daemon's registry, as `list --json` prints
// it.
type Sandbox struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Spec    string    `json:"spec"`   // the spec's file, or "default"
	Folder  string    `json:"folder"` // the sandbox's folder
	Argv    []string  `json:"argv"`   // the command
	Created time.Time `json:"created"`
	// Started is when init opened its session; zero until then.
	Started time.Time `json:"started,omitzero"`
	State   string    `json:"state"`
	// ExitCode is the command's exit code once State is exited (128+N
	// for signal N); -1 when the session dropped without one.
	ExitCode *int `json:"exit_code,omitempty"`
	// InitPID is the host pid of the sandbox's init; 0 until started.
	InitPID int `json:"init_pid,omitempty"`
	// LastBlocked is the last host:port the proxy refused, and when.
	LastBlocked   string    `json:"last_blocked,omitempty"`
	LastBlockedAt time.Time `json:"last_blocked_at,omitzero"`
}

// IDRequest names the sandbox of stop, pause and resume; All (stop only)
// names every running sandbox.
type IDRequest struct {
	ID  string `json:"id,omitempty"`
	All bool   `json:"all,omitempty"`
}

// IDsResponse lists the sandboxes a request acted on.
type IDsResponse struct {
	IDs []string `json:"ids"`
}

// Status is the daemon's account of itself.
type Status struct {
	// Running is true when a daemon answered (`status` prints false,
	// with Socket, when none did).
	Running    bool           `json:"running"`
	Version    string         `json:"version"`
	PID        int            `json:"pid"`
	Socket     string         `json:"socket"`
	RuntimeDir string         `json:"runtime_dir"`
	LogDir     string         `json:"log_dir"` // the proxy's JSON Lines log folder
	Started    time.Time      `json:"started"`
	Counts     map[string]int `json:"counts"` // sandboxes by state
	Refused    int64          `json:"refused_peers"`
}

// LogRecord is one line of the proxy's log as the log route streams it.
type LogRecord struct {
	Time     time.Time `json:"time"`
	Sandbox  string    `json:"sandbox"`
	Proto    string    `json:"proto"`
	Host     string    `json:"host,omitempty"`
	Port     uint16    `json:"port,omitempty"`
	Addr     string    `json:"addr,omitempty"`
	Decision string    `json:"decision"`
	Rule     string    `json:"rule,omitempty"`
	Up       int64     `json:"up"`
	Down     int64     `json:"down"`
	Duration int64     `json:"duration_ms"`
	Error    string    `json:"error,omitempty"`
}

// Error is the body of every failed request.
type Error struct {
	Code    string `json:"code"` // one of the Code* constants
	Message string `json:"error"`
}

// Codes of an Error.
const (
	CodeNotFound   = "not_found"
	CodeBadRequest = "bad_request"
	CodeConflict   = "conflict" // the sandbox is not in a state that allows it
	CodeDenied     = "denied"
	// CodeUnavailable: the wall cannot stand here (bwrap missing, user
	// namespaces off, an OS without a wall); the message says how to fix it.
	CodeUnavailable = "unavailable"
	CodeInternal    = "internal"
)

func (e *Error) Error() string { return e.Message }

// Is lets errors.Is match the sentinels below by code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// Sentinels to branch on with errors.Is.
var (
	ErrNotFound   = &Error{Code: CodeNotFound}
	ErrBadRequest = &Error{Code: CodeBadRequest}
	ErrConflict   = &Error{Code: CodeConflict}
)

// Errorf returns an *Error with code and message.
func Errorf(code, msg string) error { return &Error{Code: code, Message: msg} }

// CodeOf returns the code of err's *Error, or CodeInternal.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}
