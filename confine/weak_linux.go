package confine

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// weakWarning is what the weak mode says, loudly, every time it runs.
const weakWarning = `lnk: WEAK SANDBOX, as asked (no namespaces: bubblewrap is not used).
lnk:   NOT enforced: hidden paths (~/.ssh, cloud credentials, the spec's deny_read
lnk:   are READABLE); the protection of shell rc files, git hooks and config and
lnk:   editor and agent config inside writable folders; a private /dev and /proc
lnk:   (the command sees your other processes and can read their command lines
lnk:   and ENVIRONMENTS, tokens included).
lnk:   Enforced: Landlock (execute and write as the spec says; TCP only to lnk's
lnk:   proxy port, no listening; no signals or abstract sockets out of the
lnk:   sandbox; no ptrace or memory access to outside processes; a private
lnk:   TMPDIR) and seccomp (no unix, UDP or other sockets but TCP; the usual
lnk:   calls refused).`

// runWeak is init without the wall: on the host, it relays 127.0.0.1:PORT
// (and [::1]) to the proxy's socket and runs the command with Landlock and
// seccomp only. It exists for machines where bwrap cannot stand, and runs
// only when the request asks for it (Request.Weak).
func runWeak(args []string) int {
	fmt.Fprintln(os.Stderr, weakWarning)
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return initFail("init: cannot make itself undumpable: %v", err)
	}
	o, err := parseInitArgs(args)
	if err != nil || o.socket == "" {
		return initFail("init: %v: this is lnk's own command line, run through lnk sandbox run", err)
	}
	o.weak = true
	user, pass, port, err := proxyCreds()
	if err != nil {
		return initFail("%v", err)
	}
	if landlockABI() < weakABI {
		return initFail("the weak sandbox needs Landlock ABI %d (Linux 6.12 or newer) to hold the network to the proxy; this kernel has %d: the command did not run", weakABI, landlockABI())
	}
	tmp, err := os.MkdirTemp("", "lnk-weak-")
	if err != nil {
		return initFail("cannot make the sandbox's temp folder: %v: the command did not run", err)
	}
	defer os.RemoveAll(tmp)
	os.Setenv("TMPDIR", tmp)
	// Orphans come back to init, so it can end them all.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return initFail("init: cannot become a subreaper: %v", err)
	}
	r, err := startRelay(port, o.socket)
	if err != nil {
		return initFail("%v: pick another proxy port; the command did not run", err)
	}
	defer r.close()
	if err := checkHealth(port, user, pass); err != nil {
		return initFail("the sandbox's way out is not there (%v): the command did not run; check that lnk's daemon runs (lnk sandbox daemon)", err)
	}
	sess, err := openSession("unix", o.socket, user, pass)
	if err != nil {
		return initFail("%v: the command did not run", err)
	}
	if sess != nil {
		sess.weak = true
	}
	o.rules.write = append(o.rules.write, tmp)
	o.rules.files = append(o.rules.files, "/dev")
	o.rules.netPort = port
	return supervise(o, sess)
}

// descendants lists the processes under pid (children first), from
// /proc's children lists.
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 && len(out) < 100000 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(p) + "/task/*/children")
		for _, t := range tasks {
			data, err := os.ReadFile(t)
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(data)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}
