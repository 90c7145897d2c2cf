package confine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SandboxExec is macOS's Seatbelt runner.
const SandboxExec = "/usr/bin/sandbox-exec"

// HostEnviron is the environment of a command confined on this machine's
// own network and file system (macOS, Windows): r.Env without the
// variables the wall owns and without the temp variables, then the proxy
// on 127.0.0.1:ProxyPort with the sandbox's credentials, NO_PROXY for
// loopback, the sandbox's id, git's SSH through the proxy, and the
// private temp folder tmp (TMPDIR on macOS, TMP and TEMP on Windows).
func (r *Request) HostEnviron(goos, tmp string) []string {
	var out []string
	for _, kv := range r.Env {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "TMP", "TEMP", "TMPDIR":
			continue
		}
		if owned(name) {
			continue
		}
		out = append(out, kv)
	}
	pu := r.ProxyURL()
	for _, n := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		out = append(out, n+"="+pu)
		if goos != "windows" { // one environment block, names without case
			out = append(out, strings.ToLower(n)+"="+pu)
		}
	}
	out = append(out, "NO_PROXY=localhost,127.0.0.1,::1")
	if goos != "windows" {
		out = append(out, "no_proxy=localhost,127.0.0.1,::1")
	}
	out = append(out, "LNK_SANDBOX="+r.SandboxID,
		"GIT_SSH_COMMAND=ssh -o ProxyCommand='"+strings.ReplaceAll(r.LnkPath, `'`, `'\''`)+" sandbox connect %h %p'")
	if goos == "windows" {
		return append(out, "TMP="+tmp, "TEMP="+tmp)
	}
	return append(out, "TMPDIR="+tmp)
}

// SeatbeltArgv is the macOS command: sandbox-exec with the profile, lnk's
// init inside it (which checks the proxy, keeps the session and mirrors
// the exit code), and the command.
func SeatbeltArgv(r *Request, profile, tmp string) []string {
	argv := []string{SandboxExec, "-p", profile, "--",
		r.LnkPath, "sandbox", "init", "--seatbelt", "--port", strconv.Itoa(r.ProxyPort), "--socket", r.ProxySocket, "--tmp", tmp, "--"}
	return append(argv, r.Argv...)
}

// WindowsRunArgv is the Windows command: lnk's WRITE_RESTRICTED runner
// with the folder as the workspace, writable (workspace-write) when the
// policy lets the sandbox write the folder, else read-only.
func WindowsRunArgv(r *Request, tmp string) []string {
	mode := WinReadOnly
	if r.Policy.CanWrite(r.Policy.Folder) {
		mode = WinWorkspaceWrite
	}
	argv := []string{r.LnkPath, "sandbox", "windows-acl-run",
		"--workspace", r.Policy.Folder, "--temp", tmp, "--mode", mode, "--"}
	return append(argv, r.Argv...)
}

// parseSeatbeltInit reads the flags SeatbeltArgv gives init.
func parseSeatbeltInit(args []string) (port int, socket, tmp string, argv []string, err error) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			argv = args[i+1:]
			i = len(args)
		case a == "--port" && i+1 < len(args):
			port, err = strconv.Atoi(args[i+1])
			i++
		case a == "--socket" && i+1 < len(args):
			socket = args[i+1]
			i++
		case a == "--tmp" && i+1 < len(args):
			tmp = args[i+1]
			i++
		default:
			return 0, "", "", nil, fmt.Errorf("unknown argument %q", a)
		}
	}
	switch {
	case err != nil || port <= 0 || port > 65535:
		return 0, "", "", nil, errors.New("--port needs the proxy's port")
	case socket == "":
		return 0, "", "", nil, errors.New("--socket needs the proxy's socket")
	case tmp == "":
		return 0, "", "", nil, errors.New("--tmp needs the sandbox's temp folder")
	case len(argv) == 0:
		return 0, "", "", nil, errors.New("no command after --")
	}
	return port, socket, tmp, argv, nil
}
