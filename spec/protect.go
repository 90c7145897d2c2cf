package spec

import "path/filepath"

// ProtectedNames are the files and folders a sandbox may never write, or
// create, anywhere inside a writable folder, whatever its spec says: they
// run code or change tools outside the sandbox the next time the person
// uses their shell, git, editor or agent. Each is a path relative to any
// folder: ".git/hooks" protects every repository's hooks. The rest of .git
// stays writable so commits work.
var ProtectedNames = []string{
	// shells
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
	".config/fish", ".inputrc",
	// git
	".git/hooks", ".git/config", ".gitconfig", ".gitmodules", ".config/git",
	// tools that run commands from their config
	".envrc", ".ripgreprc", ".npmrc", ".yarnrc", ".yarnrc.yml",
	// editors and agents
	".vscode", ".idea", ".mcp.json", ".cursor",
	".claude/commands", ".claude/agents", ".claude/settings.json", ".claude/settings.local.json",
}

// HomeSecrets are the paths under the home folder that hold credentials,
// keys, browser profiles and keyrings. Every sandbox has them hidden; a
// spec may re-open one with filesystem.allow_read.
var HomeSecrets = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker",
	".netrc", ".npmrc", ".pypirc", ".git-credentials", ".config/gh", ".config/hub",
	".password-store", ".vault-token", ".terraform.d/credentials.tfrc.json",
	".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	".config/rclone", ".config/op", ".pki",
	// keyrings
	".local/share/keyrings", "Library/Keychains",
	// browser profiles
	".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
	".config/microsoft-edge", ".config/vivaldi", ".config/opera", "snap/firefox", "snap/chromium",
	".thunderbird",
	"Library/Application Support/Google/Chrome", "Library/Application Support/Firefox",
	"Library/Application Support/BraveSoftware", "Library/Application Support/Microsoft Edge",
	"Library/Safari", "Library/Cookies",
}

// LinkDirs are lnk's own settings, state, cache and sockets. No sandbox
// reads or writes them, and no spec can re-open them.
type LinkDirs struct {
	Config  string // settings: tools, tokens ($XDG_CONFIG_HOME/lnk)
	State   string // logs and state ($XDG_STATE_HOME/lnk)
	Cache   string // cache ($XDG_CACHE_HOME/lnk)
	Runtime string // sockets ($XDG_RUNTIME_DIR/lnk), "" if there is no runtime dir
}

// List returns the non-empty dirs.
func (d LinkDirs) List() []string {
	var out []string
	for _, p := range []string{d.Config, d.State, d.Cache, d.Runtime} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// DefaultLinkDirs returns lnk's dirs for a home and the XDG variables'
// values (empty for unset).
func DefaultLinkDirs(home, xdgConfig, xdgState, xdgCache, xdgRuntime string) LinkDirs {
	or := func(v, def string) string {
		if v != "" && filepath.IsAbs(v) {
			return v
		}
		return def
	}
	d := LinkDirs{
		Config: filepath.Join(or(xdgConfig, filepath.Join(home, ".config")), "lnk"),
		State:  filepath.Join(or(xdgState, filepath.Join(home, ".local", "state")), "lnk"),
		Cache:  filepath.Join(or(xdgCache, filepath.Join(home, ".cache")), "lnk"),
	}
	if xdgRuntime != "" && filepath.IsAbs(xdgRuntime) {
		d.Runtime = filepath.Join(xdgRuntime, "lnk")
	}
	return d
}
