package toolconf

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"lnk.dev/sandbox/spec"
)

// Ask modes of a [Tool].
const (
	AskCalls = "calls" // every tools/call asks, but those Allow names (the default)
	AskNone  = "none"  // no call asks
)

// DefaultSharedIdle is how long a shared server runs without calls when
// the settings do not say.
const DefaultSharedIdle = 5 * time.Minute

// maxFile bounds the settings file.
const maxFile = 1 << 20

// Settings are the whole tools.toml.
type Settings struct {
	// SharedIdle is how long a shared tool's server runs without a call
	// before it is stopped ("5m"); "" is DefaultSharedIdle.
	SharedIdle string `toml:"shared_idle,omitempty"`
	// Tools by name.
	Tools map[string]*Tool `toml:"tool,omitempty"`
}

// Tool is one MCP server that runs outside the sandboxes.
type Tool struct {
	// Command is the server's program and its arguments; it speaks MCP
	// over stdio (newline-delimited JSON-RPC).
	Command []string `toml:"command"`
	// Env are the server's own environment variables, added to a short
	// base (HOME, PATH, USER, LOGNAME, SHELL, TERM, LANG of the daemon).
	// The sandbox's environment never reaches it.
	Env map[string]string `toml:"env,omitempty"`
	// Allow names the server's tools whose calls never ask.
	Allow []string `toml:"allow,omitempty"`
	// Ask is AskCalls ("" too) or AskNone.
	Ask string `toml:"ask,omitempty"`
	// Shared runs one server for every sandbox (the hub), stopped after
	// SharedIdle without calls.
	Shared bool `toml:"shared,omitempty"`
}

// AsksNone reports whether no call of t asks.
func (t *Tool) AsksNone() bool { return t.Ask == AskNone }

// Idle is SharedIdle as a duration (DefaultSharedIdle when unset).
func (s *Settings) Idle() time.Duration {
	d, err := time.ParseDuration(s.SharedIdle)
	if s.SharedIdle == "" || err != nil || d <= 0 {
		return DefaultSharedIdle
	}
	return d
}

// Names returns the tools' names, sorted.
func (s *Settings) Names() []string {
	out := make([]string, 0, len(s.Tools))
	for n := range s.Tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Read reads the settings file at path strictly. A missing file is empty
// settings.
func Read(path string) (*Settings, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Settings{Tools: map[string]*Tool{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tool settings: %w", err)
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("tool settings %s: over %d bytes: remove tools with lnk sandbox tool remove", path, maxFile)
	}
	s, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("tool settings %s: %w", path, err)
	}
	return s, nil
}

// Parse reads settings from TOML text strictly and validates them.
func Parse(b []byte) (*Settings, error) {
	var s Settings
	md, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&s)
	if err != nil {
		return nil, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("unknown key %q: the keys are shared_idle and tool.NAME.{command, env, allow, ask, shared}", und[0].String())
	}
	if s.Tools == nil {
		s.Tools = map[string]*Tool{}
	}
	for _, t := range s.Tools {
		if t != nil && len(t.Env) == 0 {
			t.Env = nil // as written back: an empty table is left out
		}
		if t != nil && len(t.Allow) == 0 {
			t.Allow = nil
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate checks every tool and the idle time.
func (s *Settings) Validate() error {
	if s.SharedIdle != "" {
		d, err := time.ParseDuration(s.SharedIdle)
		if err != nil || d <= 0 {
			return fmt.Errorf("shared_idle %q is not a positive duration such as \"5m\"", s.SharedIdle)
		}
	}
	for _, name := range s.Names() {
		if err := ValidateTool(name, s.Tools[name]); err != nil {
			return err
		}
	}
	return nil
}

// ValidateTool checks one tool's name and definition.
func ValidateTool(name string, t *Tool) error {
	if !spec.ValidToolName(name) {
		return fmt.Errorf("tool name %q: use 1 to 63 lower-case letters, digits, '-' and '_', starting with a letter or digit", name)
	}
	if t == nil || len(t.Command) == 0 || strings.TrimSpace(t.Command[0]) == "" {
		return fmt.Errorf("tool.%s.command: give the server's program and arguments (lnk sandbox tool add %s -- PROGRAM ARGS...)", name, name)
	}
	for _, a := range t.Command {
		if strings.ContainsRune(a, 0) {
			return fmt.Errorf("tool.%s.command: an argument holds a NUL byte", name)
		}
	}
	for k, v := range t.Env {
		if !ValidEnvName(k) {
			return fmt.Errorf("tool.%s.env: %q is not a variable name (letters, digits and '_', not starting with a digit)", name, k)
		}
		if strings.ContainsRune(v, 0) {
			return fmt.Errorf("tool.%s.env.%s: the value holds a NUL byte", name, k)
		}
	}
	for _, a := range t.Allow {
		if !ValidCallName(a) {
			return fmt.Errorf("tool.%s.allow: %q is not an MCP tool name (1 to 128 letters, digits, '_', '-', '.' or '/')", name, a)
		}
	}
	if t.Ask != "" && t.Ask != AskCalls && t.Ask != AskNone {
		return fmt.Errorf("tool.%s.ask: %q is neither %q (every call asks but those allowed) nor %q (no call asks)", name, t.Ask, AskCalls, AskNone)
	}
	return nil
}

// ValidEnvName reports whether s is an environment variable's name.
func ValidEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// ValidCallName reports whether s has the form of an MCP tool's name as
// --allow takes it.
func ValidCallName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-./", c) >= 0) {
			return false
		}
	}
	return true
}

// Write validates s and writes it to path: the folder is made 0700 if
// missing, the file is written 0600 to a temporary name and renamed over
// the old one, so a reader never sees half a file.
func Write(path string, s *Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("tool settings: %w", err)
	}
	var buf bytes.Buffer
	buf.WriteString("# lnk's tools: MCP servers that run outside every sandbox.\n" +
		"# Written by `lnk sandbox tool add`; see `lnk sandbox tool --help`.\n\n")
	if err := toml.NewEncoder(&buf).Encode(s); err != nil {
		return fmt.Errorf("tool settings: %w", err)
	}
	f, err := os.CreateTemp(dir, ".tools-*.toml")
	if err != nil {
		return fmt.Errorf("tool settings: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("tool settings: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("tool settings: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("tool settings: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("tool settings: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("tool settings: %w", err)
	}
	return nil
}
