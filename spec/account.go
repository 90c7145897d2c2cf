package spec

import (
	"fmt"
	"io"
	"runtime"
	"strings"
)

// Enforcement says, for one operating system, what its wall enforces of a
// policy and what it does not. `lnk sandbox permissions` prints it so
// nobody believes in a wall that is not there.
type Enforcement struct {
	OS   string
	Wall string
	// Ready is false while the wall is not built on this OS: lnk then
	// refuses to run commands there rather than run them unconfined.
	Ready    bool
	Enforced []string
	NotDone  []string
}

// Enforcements lists every OS lnk runs on.
var Enforcements = []Enforcement{
	{
		OS:    "linux",
		Wall:  "bubblewrap namespaces, then seccomp and Landlock set by lnk's init",
		Ready: true,
		Enforced: []string{
			"reads: hidden paths are empty, lnk's own dirs are absent",
			"writes: only the writable paths and a private /tmp; protected files cannot be written, nor created at the top of a writable folder or in .git (deeper ones are renamed NAME.lnk-blocked when the run ends)",
			"programs: Landlock lets only the system's and the allowed programs run",
			"network: the sandbox has its own loopback only; everything goes through lnk's proxy",
			"no new unix sockets, io_uring, ptrace, bpf, keyrings, mounts or user namespaces (seccomp)",
		},
	},
	{
		OS:    "darwin",
		Wall:  "a Seatbelt profile run by sandbox-exec, generated from the spec",
		Ready: true,
		Enforced: []string{
			"reads: hidden paths and lnk's own dirs are refused (they read as an error, not as empty)",
			"writes: only the writable paths and a private temp folder; protected files cannot be written or created at any depth, in any letter case (so git init and git clone into a writable folder fail: a new repository's .git/config cannot be written)",
			"programs: only the system's, the allowed and (with developer_tools) Xcode's programs run",
			"network: only lnk's proxy on this machine's loopback; no DNS, no other address (mode \"host\" opens it all)",
			"Mach services: only user lookups, notifications, logging, TLS certificate checks and the temp-folder helper",
			"processes: the sandbox sees and signals only its own",
		},
		NotDone: []string{
			"the sandbox shares this machine's loopback: its own servers are reachable from outside it, and a login's callback arrives directly",
			"a process that leaves the command's process group (setsid) outlives a stop; Linux's pid namespace has no such gap",
			"a repository the sandbox creates can get hooks by renaming a folder to .git: treat git folders made in a sandbox as untrusted",
		},
	},
	{
		OS:    "windows",
		Wall:  "a WRITE_RESTRICTED token (lnk sandbox windows-acl-run)",
		Ready: true,
		Enforced: []string{
			"writes: only the sandbox's folder (when the spec writes it) and a private temp folder; other allow_write paths are NOT writable",
			"the command and everything it starts end with the runner (a job object, no breakaway); stop ends them all",
		},
		NotDone: []string{
			"reads are NOT confined: the sandbox can read every file you can, hidden paths and home's secrets included",
			"network is NOT confined: the proxy is advice a program may ignore; mode = \"proxy\" cannot hold a program to it here",
			"programs: any program may run",
			"deny_write and protected files (shell rc, git hooks and config, editor config) inside the folder: writable like the rest of it",
			"pause and resume: Windows has no way to stop a process tree's clock; the command runs on",
		},
	},
}

// Describe writes a human account of what policy p grants, grouped as
// files read, written and hidden, programs, hosts, LAN, endpoints and tools,
// then what each OS's wall enforces of it.
func Describe(w io.Writer, p *Policy) {
	fmt.Fprintf(w, "Spec: %s\nFolder: %s\n\n", p.Source, p.Folder)
	fmt.Fprintln(w, "Files read:")
	fmt.Fprintln(w, "  everything not hidden below (read-only unless written below)")
	for _, r := range p.ReadAllow {
		fmt.Fprintf(w, "  %s  (re-allowed, %s)\n", showPath(r), r.From)
	}
	fmt.Fprintln(w, "Files written:")
	if len(p.Writable) == 0 {
		fmt.Fprintln(w, "  none but the sandbox's private /tmp")
	} else {
		fmt.Fprintln(w, "  the sandbox's private /tmp")
	}
	for _, r := range p.Writable {
		fmt.Fprintf(w, "  %s  (%s)\n", showPath(r), r.From)
	}
	for _, r := range p.WriteDenied {
		fmt.Fprintf(w, "  except %s, read-only  (%s)\n", showPath(r), r.From)
	}
	if len(p.Writable) > 0 {
		fmt.Fprintf(w, "  never, in any writable folder: %s\n", strings.Join(p.Protected, " "))
	}
	fmt.Fprintln(w, "Files hidden:")
	fmt.Fprintln(w, "  (on Windows NOT enforced: every file below is readable there)")
	for _, r := range p.Hidden {
		if r.From == "lnk" {
			continue
		}
		fmt.Fprintf(w, "  %s  (%s)\n", showPath(r), r.From)
	}
	fmt.Fprintf(w, "  lnk's own settings and sockets: %s (always)\n", strings.Join(p.Link, " "))
	fmt.Fprintln(w, "Programs:")
	fmt.Fprintf(w, "  the system's: %s\n", strings.Join(SystemExecDirs, " "))
	for _, r := range p.Exec {
		fmt.Fprintf(w, "  %s  (%s)\n", showPath(r), r.From)
	}
	describeNetwork(w, &p.Network)
	if len(p.Notes) > 0 {
		fmt.Fprintln(w, "Skipped:")
		for _, n := range p.Notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	fmt.Fprintln(w)
	DescribeEnforcement(w)
}

func describeNetwork(w io.Writer, n *NetworkPolicy) {
	fmt.Fprintln(w, "Hosts:")
	if n.Mode == ModeHost {
		fmt.Fprintln(w, "  !! mode = \"host\": NO network filtering; the sandbox uses this machine's network directly")
	}
	if len(n.Hosts) == 0 && n.Mode != ModeHost {
		fmt.Fprintln(w, "  none: every connection is refused")
	}
	if n.Mode != ModeHost {
		fmt.Fprintln(w, "  (on Windows NOT enforced: a program may ignore the proxy and connect anywhere)")
	}
	for i, h := range n.Hosts {
		fmt.Fprintf(w, "  %s  (hosts[%d])\n", h.Text, i)
	}
	for i, h := range n.Deny {
		fmt.Fprintf(w, "  never %s  (deny[%d])\n", h.Text, i)
	}
	fmt.Fprintln(w, "LAN:")
	if len(n.LAN) == 0 {
		fmt.Fprintln(w, "  none: loopback, private, link-local and metadata addresses are refused")
	}
	for _, l := range n.LAN {
		fmt.Fprintf(w, "  %s\n", l.Text)
	}
	fmt.Fprintf(w, "Endpoints:\n  %s\n", orNone(n.Endpoints))
	fmt.Fprintf(w, "Tools:\n  %s\n", orNone(n.Tools))
}

// DescribeEnforcement writes what each OS's wall enforces and does not.
func DescribeEnforcement(w io.Writer) {
	fmt.Fprintln(w, "What each system's wall enforces:")
	for _, e := range Enforcements {
		here := ""
		if e.OS == runtime.GOOS {
			here = " (this system)"
		}
		fmt.Fprintf(w, "  %s%s: %s\n", e.OS, here, e.Wall)
		if !e.Ready {
			fmt.Fprintln(w, "    NOT AVAILABLE YET: lnk refuses to run sandboxes here")
		}
		label := "enforced"
		if !e.Ready {
			label = "will enforce"
		}
		for _, s := range e.Enforced {
			fmt.Fprintf(w, "    %s: %s\n", label, s)
		}
		for _, s := range e.NotDone {
			fmt.Fprintf(w, "    NOT enforced: %s\n", s)
		}
	}
}

func showPath(p Path) string {
	s := p.Path
	if p.Dir {
		s += "/"
	}
	if p.Glob {
		s += "  [glob]"
	} else if !p.Exists {
		s += "  [absent, kept absent]"
	}
	return s
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
