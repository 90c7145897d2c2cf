package apitype

import (
	"errors"
	"os"
	"path/filepath"

	"lnk.dev/sandbox/spec"
)

// Paths are the per-user places the CLI and the daemon agree on. Every one
// lies inside lnk's own dirs (spec.LinkDirs), which every sandbox has
// hidden.
type Paths struct {
	// Runtime is the daemon's 0700 folder: $XDG_RUNTIME_DIR/lnk, else
	// "run" in lnk's cache folder. The control socket and each sandbox's
	// proxy socket (sb/<id>/proxy.sock) live here.
	Runtime string
	// State holds the daemon's own log (daemon.log) and the proxy's
	// JSON Lines log folder (log/).
	State string
	// Config holds the person's settings (tools.toml): $XDG_CONFIG_HOME/lnk.
	Config string
}

// DefaultPaths returns the paths of this user from the environment
// (HOME and the XDG_* variables).
func DefaultPaths() (Paths, error) {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return Paths{}, errors.New("cannot find your home folder: set HOME")
	}
	return PathsFor(spec.DefaultLinkDirs(home, os.Getenv("XDG_CONFIG_HOME"), os.Getenv("XDG_STATE_HOME"),
		os.Getenv("XDG_CACHE_HOME"), os.Getenv("XDG_RUNTIME_DIR"))), nil
}

// PathsFor returns the paths inside lnk's dirs d.
func PathsFor(d spec.LinkDirs) Paths {
	rt := d.Runtime
	if rt == "" {
		rt = filepath.Join(d.Cache, "run")
	}
	return Paths{Runtime: rt, State: d.State, Config: d.Config}
}

// LogDir is the proxy's log folder.
func (p Paths) LogDir() string { return filepath.Join(p.State, "log") }

// DaemonLog is the file the daemon's stdout and stderr go to.
func (p Paths) DaemonLog() string { return filepath.Join(p.State, "daemon.log") }

// SandboxDir is the runtime folder of one sandbox.
func (p Paths) SandboxDir(id string) string { return filepath.Join(p.Runtime, "sb", id) }

// ToolsFile is the settings file of the tools (MCP servers that run
// outside every sandbox), written by `lnk sandbox tool add`; "" when
// Config is unset.
func (p Paths) ToolsFile() string {
	if p.Config == "" {
		return ""
	}
	return filepath.Join(p.Config, "tools.toml")
}
