package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Protocols of a [Record].
const (
	ProtoHTTP    = "http"
	ProtoConnect = "connect"
	ProtoSOCKS5  = "socks5"
	ProtoRoute   = "route"
	ProtoAsk     = "ask"   // a question to the person (the Asker), and its answer
	ProtoOpen    = "open"  // a page a sandbox asked to open in the person's browser
	ProtoOAuth   = "oauth" // a login's callback port on the host, and the request it passed
)

// Decisions of a [Record].
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask" // a question was asked; its answer is a later line
)

// Record is one line of the log: one connection (CONNECT, SOCKS5) or one
// request (absolute-form HTTP, a route). It never holds credentials.
type Record struct {
	Time     time.Time `json:"time"`            // when the connection or request began
	Sandbox  string    `json:"sandbox"`         // the sandbox's id
	Proto    string    `json:"proto"`           // http, connect, socks5 or route
	Host     string    `json:"host,omitempty"`  // the host as normalised, or as sent when it was refused unparsed
	Port     uint16    `json:"port,omitempty"`  // the port asked for
	Addr     string    `json:"addr,omitempty"`  // the address dialled (ip:port)
	Decision string    `json:"decision"`        // allow or deny
	Rule     string    `json:"rule,omitempty"`  // the rule that decided
	Up       int64     `json:"up"`              // bytes from the sandbox
	Down     int64     `json:"down"`            // bytes to the sandbox
	Duration int64     `json:"duration_ms"`     // how long it lasted
	Error    string    `json:"error,omitempty"` // what went wrong, if anything
}

// Log is an append-only JSON Lines log, safe for concurrent use. Files are
// rotated by size: proxy.log, then proxy.log.1 (older) up to proxy.log.N.
// One process (the daemon) owns a log folder; every line is written with one
// write(2) on an O_APPEND file, so lines never interleave.
type Log struct {
	mu   sync.Mutex // guards the fields below
	w    io.Writer  // the current file, or the writer given to NewLog
	f    *os.File   // nil for NewLog
	dir  string
	size int64
	max  int64 // rotate when a file reaches this size
	keep int   // rotated files kept
	err  error // the first write error, reported by Close
}

// LogFile is the name of the current log file inside the log folder.
const LogFile = "proxy.log"

const (
	defaultLogMax  = 16 << 20
	defaultLogKeep = 4
)

// OpenLog opens (creating it 0700) the log folder dir and appends to its
// current file, 0600.
func OpenLog(dir string) (*Log, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("proxy log: %w: check that the folder is writable", err)
	}
	l := &Log{dir: dir, max: defaultLogMax, keep: defaultLogKeep}
	if err := l.openLocked(); err != nil {
		return nil, err
	}
	return l, nil
}

// NewLog returns a Log that writes to w and never rotates (tests, pipes,
// a daemon's tap). w gets each record as one Write call of one whole line,
// never two writes at once.
func NewLog(w io.Writer) *Log { return &Log{w: w} }

func (l *Log) openLocked() error {
	f, err := os.OpenFile(filepath.Join(l.dir, LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("proxy log: %w: check that the folder is writable", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("proxy log: %w", err)
	}
	l.f, l.w, l.size = f, f, st.Size()
	return nil
}

// Write appends r as one line. JSON encoding escapes every control
// character, so no field can start a line of its own.
func (l *Log) Write(r Record) {
	if l == nil {
		return
	}
	b, err := json.Marshal(r)
	if err != nil { // cannot happen for Record; keep the line anyway
		b, _ = json.Marshal(Record{Time: r.Time, Sandbox: r.Sandbox, Decision: r.Decision, Error: "log: " + err.Error()})
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil && l.max > 0 && l.size+int64(len(b)) > l.max && l.size > 0 {
		l.rotateLocked()
	}
	if l.w == nil {
		return
	}
	n, err := l.w.Write(b)
	l.size += int64(n)
	if err != nil && l.err == nil {
		l.err = err
	}
}

// rotateLocked shifts proxy.log.i to .i+1, dropping the oldest, and starts
// a new proxy.log.
func (l *Log) rotateLocked() {
	l.f.Close()
	l.f, l.w = nil, nil
	base := filepath.Join(l.dir, LogFile)
	os.Remove(fmt.Sprintf("%s.%d", base, l.keep))
	for i := l.keep - 1; i >= 1; i-- {
		os.Rename(fmt.Sprintf("%s.%d", base, i), fmt.Sprintf("%s.%d", base, i+1))
	}
	if err := os.Rename(base, base+".1"); err != nil && !errors.Is(err, os.ErrNotExist) && l.err == nil {
		l.err = err
	}
	if err := l.openLocked(); err != nil && l.err == nil {
		l.err = err
	}
}

// Close closes the file and reports the first write error, if any.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		if err := l.f.Close(); err != nil && l.err == nil {
			l.err = err
		}
		l.f, l.w = nil, nil
	}
	return l.err
}
