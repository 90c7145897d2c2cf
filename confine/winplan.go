package confine

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The Windows runner's plan: `lnk sandbox windows-acl-run` turns its
// arguments into a [WinPlan] here, with no system calls, and the thin
// applier (winrun_windows.go) carries it out. See the package doc
// ("Windows").

// WinRunFailure is the runner's exit code for every failure of its own;
// its stderr then has one line "windows-acl-run: <detail>".
const WinRunFailure = 127

// Runner modes.
const (
	WinReadOnly       = "read-only"
	WinWorkspaceWrite = "workspace-write"
)

// Well-known SIDs the plan names.
const (
	SIDEveryone           = "S-1-1-0"
	SIDAuthenticatedUsers = "S-1-5-11"
	SIDInteractive        = "S-1-5-4"
	SIDLocal              = "S-1-2-0"
	// SIDLogon stands for the caller's logon SID (S-1-5-5-X-Y), which
	// only the applier can read from its token.
	SIDLogon = "logon"
)

// WinModify is the access the write SID is granted on the workspace and
// the temp folder: read, write, execute and delete ("Modify"), not
// WRITE_DAC or WRITE_OWNER, so the sandbox cannot change the ACLs.
const WinModify = 0x001301BF

// WinRunArgs are the runner's parsed arguments (the argv contract).
type WinRunArgs struct {
	Workspace string
	Temp      string
	Mode      string
	WriteSID  string // "" when --write-sid is absent
	Argv      []string
}

// WinACE is one access-control entry for the write SID on a folder,
// inherited by everything inside it.
type WinACE struct {
	Path string
	SID  string
	Mask uint32
}

// WinPlan is everything the runner does, decided before it touches the
// system.
type WinPlan struct {
	Mode      string
	Workspace string // normalized
	Temp      string // normalized
	// WriteSID is the workspace's write SID (derived, never taken on
	// trust); it is in Restricting only in workspace-write mode.
	WriteSID string
	// SeamManaged: --write-sid was given, so the caller owns the ACEs:
	// nothing is granted or revoked.
	SeamManaged bool
	// Restricting are the restricting SIDs of the WRITE_RESTRICTED token:
	// a write passes only if one of them is granted it too.
	Restricting []string
	// Dropped are groups left out of Restricting in both modes, so a
	// folder that grants them write (Public, the drive's root) is not
	// writable.
	Dropped []string
	// Grant are ACEs added before the command starts; RevokeOnExit are
	// removed when it has ended (the temp grant). Workspace grants stand:
	// they are the reuse cache for the next run.
	Grant        []WinACE
	RevokeOnExit []WinACE
	// Env are variables the runner sets in its own environment, which
	// the command inherits.
	Env []string
	// Program is argv[0]; CommandLine is the whole command line, quoted
	// so that CommandLineToArgvW gives back argv exactly.
	Program     string
	CommandLine string
	Argv        []string
}

// winRunError is a runner failure; its text follows "windows-acl-run: ".
func winRunError(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

// ParseWinRunArgs reads the argv contract:
//
//	--workspace DIR --temp DIR --mode read-only|workspace-write [--write-sid SID] -- ARGV...
//
// Each flag at most once, the three without brackets required, nothing
// else before "--", and a command after it.
func ParseWinRunArgs(args []string) (*WinRunArgs, error) {
	a := &WinRunArgs{}
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f == "--" {
			a.Argv = args[i+1:]
			break
		}
		var dst *string
		switch f {
		case "--workspace":
			dst = &a.Workspace
		case "--temp":
			dst = &a.Temp
		case "--mode":
			dst = &a.Mode
		case "--write-sid":
			dst = &a.WriteSID
		default:
			return nil, winRunError("unknown argument %q: usage: --workspace DIR --temp DIR --mode read-only|workspace-write [--write-sid SID] -- COMMAND...", f)
		}
		if seen[f] {
			return nil, winRunError("%s given twice", f)
		}
		seen[f] = true
		if i+1 >= len(args) || args[i+1] == "--" {
			return nil, winRunError("%s needs a value", f)
		}
		*dst = args[i+1]
		i++
	}
	switch {
	case !seen["--workspace"]:
		return nil, winRunError("--workspace DIR is required")
	case !seen["--temp"]:
		return nil, winRunError("--temp DIR is required")
	case !seen["--mode"]:
		return nil, winRunError("--mode read-only|workspace-write is required")
	case a.Mode != WinReadOnly && a.Mode != WinWorkspaceWrite:
		return nil, winRunError("--mode %q: use read-only or workspace-write", a.Mode)
	case seen["--write-sid"] && a.WriteSID == "":
		return nil, winRunError("--write-sid needs a SID")
	case len(a.Argv) == 0:
		return nil, winRunError("no command: give it after --")
	}
	return a, nil
}

// PlanWinRun parses args and plans the run.
func PlanWinRun(args []string) (*WinPlan, error) {
	a, err := ParseWinRunArgs(args)
	if err != nil {
		return nil, err
	}
	ws, err := NormalizeWinPath(a.Workspace)
	if err != nil {
		return nil, winRunError("--workspace: %v", err)
	}
	tmp, err := NormalizeWinPath(a.Temp)
	if err != nil {
		return nil, winRunError("--temp: %v", err)
	}
	if tmp == ws {
		return nil, winRunError("--temp %s is the workspace: give the sandbox a temp folder of its own (its grant is revoked on exit)", a.Temp)
	}
	p := &WinPlan{
		Mode: a.Mode, Workspace: ws, Temp: tmp,
		WriteSID:    WriteSID(ws),
		SeamManaged: a.WriteSID != "",
		Restricting: []string{SIDLogon, SIDEveryone},
		Dropped:     []string{SIDAuthenticatedUsers, SIDInteractive, SIDLocal},
		Program:     a.Argv[0],
		Argv:        a.Argv,
	}
	if p.SeamManaged && !strings.EqualFold(a.WriteSID, p.WriteSID) {
		return nil, winRunError("--write-sid %s is not the workspace's write SID %s (derived from %s)", a.WriteSID, p.WriteSID, ws)
	}
	if p.CommandLine, err = WindowsCommandLine(a.Argv); err != nil {
		return nil, err
	}
	if a.Mode == WinWorkspaceWrite {
		p.Restricting = append(p.Restricting, p.WriteSID)
		if p.SeamManaged {
			p.Env = []string{"TMP=" + a.Temp, "TEMP=" + a.Temp}
		} else {
			p.Grant = []WinACE{{ws, p.WriteSID, WinModify}, {tmp, p.WriteSID, WinModify}}
			p.RevokeOnExit = []WinACE{{tmp, p.WriteSID, WinModify}}
		}
	}
	return p, nil
}

// writeSIDTag makes the hash lnk's own, versioned: a change of derivation
// is a change of this tag.
const writeSIDTag = "lnk-sandbox windows write-sid v1\x00"

// WriteSID derives the per-workspace write SID from the normalized
// absolute root (see [NormalizeWinPath]): SHA-256 of a fixed tag and the
// root's UTF-8 bytes, whose first 16 bytes become four 32-bit
// sub-authorities (little-endian) under S-1-4, the non-unique authority:
// S-1-4-A-B-C-D. No account or group has such a SID, so only ACEs lnk
// grants ever name it, and the same folder always gets the same SID.
func WriteSID(normRoot string) string {
	sum := sha256.Sum256([]byte(writeSIDTag + normRoot))
	var b strings.Builder
	b.WriteString("S-1-4")
	for i := 0; i < 4; i++ {
		b.WriteString("-" + strconv.FormatUint(uint64(binary.LittleEndian.Uint32(sum[4*i:])), 10))
	}
	return b.String()
}

// NormalizeWinPath makes an absolute Windows path canonical for the write
// SID and the ACEs: '/' becomes '\', a \\?\ prefix is dropped, "." and
// ".." components are resolved (never above the root), repeated and
// trailing separators are dropped, and letters are upper-cased (Windows
// compares paths without case). Drive paths (C:\…) and UNC paths
// (\\server\share\…) are accepted; relative, drive-relative (C:x) and
// device (\\.\) paths are refused.
func NormalizeWinPath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("empty path: give an absolute folder")
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%q has a NUL character", p)
	}
	s := strings.ReplaceAll(p, "/", `\`)
	switch {
	case strings.HasPrefix(s, `\\?\UNC\`):
		s = `\\` + s[len(`\\?\UNC\`):]
	case strings.HasPrefix(s, `\\?\`):
		s = s[len(`\\?\`):]
	case strings.HasPrefix(s, `\\.\`):
		return "", fmt.Errorf("%q is a device path: give a folder", p)
	}
	root, rest, err := winRoot(s)
	if err != nil {
		return "", fmt.Errorf("%q %v", p, err)
	}
	var comps []string
	for _, c := range strings.Split(rest, `\`) {
		switch c {
		case "", ".":
		case "..":
			if len(comps) > 0 {
				comps = comps[:len(comps)-1]
			}
		default:
			comps = append(comps, c)
		}
	}
	out := root
	if len(comps) > 0 {
		if !strings.HasSuffix(out, `\`) {
			out += `\`
		}
		out += strings.Join(comps, `\`)
	}
	return strings.ToUpper(out), nil
}

// winRoot splits a path with '\' separators into its root (C:\ or
// \\server\share) and the rest.
func winRoot(s string) (root, rest string, err error) {
	switch {
	case len(s) >= 3 && isLetter(s[0]) && s[1] == ':' && s[2] == '\\':
		return strings.ToUpper(s[:2]) + `\`, s[3:], nil
	case strings.HasPrefix(s, `\\`):
		parts := strings.SplitN(strings.TrimLeft(s, `\`), `\`, 3)
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" || parts[0] == "." || parts[0] == "?" {
			return "", "", errors.New("is not a full UNC path (\\\\server\\share\\…)")
		}
		root = `\\` + parts[0] + `\` + parts[1]
		if len(parts) == 3 {
			rest = parts[2]
		}
		return root, rest, nil
	}
	return "", "", errors.New("is not an absolute path (C:\\… or \\\\server\\share\\…)")
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
