package confine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"lnk.dev/sandbox/spec"
)

// Wrap returns the command that runs r's command inside the wall: lnk's
// guard, bwrap, and lnk's init as the sandbox's first process.
func Wrap(r *Request) (*Command, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	if r.Weak {
		return weakCommand(r)
	}
	if err := quickCheck(r.BwrapPath); err != nil {
		return nil, err
	}
	argv, err := commandArgv(r)
	if err != nil {
		return nil, err
	}
	return &Command{Argv: argv, Env: r.Environ(), Dir: r.dir()}, nil
}

// Check reports whether the wall can stand on this machine: bwrap, user
// namespaces, AppArmor's restriction, Landlock and seccomp. The error is
// one paragraph that says what is wrong and how to fix it.
func Check() error {
	if err := quickCheck(""); err != nil {
		return err
	}
	if err := probeBwrap(""); err != nil {
		return err
	}
	if landlockABI() < 1 {
		return errNoLandlock
	}
	if _, err := seccompFilter(false); err != nil {
		return err
	}
	return nil
}

func readSysctl(name string) string {
	b, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(name, ".", "/"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// quickCheck reads what is cheap to read: is bwrap there, are user
// namespaces on. Where AppArmor restricts them, it runs bwrap once.
func quickCheck(bwrap string) error {
	if bwrap == "" {
		bwrap = "bwrap"
	}
	if _, err := exec.LookPath(bwrap); err != nil {
		return errors.New("bwrap not found: lnk's Linux wall is bubblewrap; install the bubblewrap package (apt install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap)")
	}
	if readSysctl("kernel.unprivileged_userns_clone") == "0" && os.Getuid() != 0 {
		return errors.New("user namespaces are off for unprivileged users (kernel.unprivileged_userns_clone=0), so bwrap cannot build the sandbox: turn them on with sudo sysctl -w kernel.unprivileged_userns_clone=1 (and in /etc/sysctl.d to keep it)")
	}
	if readSysctl("user.max_user_namespaces") == "0" {
		return errors.New("user namespaces are off (user.max_user_namespaces=0), so bwrap cannot build the sandbox: turn them on with sudo sysctl -w user.max_user_namespaces=15000 (and in /etc/sysctl.d to keep it)")
	}
	if readSysctl("kernel.apparmor_restrict_unprivileged_userns") == "1" {
		return probeBwrap(bwrap)
	}
	return nil
}

var (
	probeOnce sync.Once
	probeErr  error
)

// probeBwrap builds an empty sandbox once per process.
func probeBwrap(bwrap string) error {
	if bwrap == "" {
		bwrap = "bwrap"
	}
	probeOnce.Do(func() {
		out, err := exec.Command(bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
			"--dev", "/dev", "--proc", "/proc", "--", "true").CombinedOutput()
		if err != nil {
			probeErr = explainBwrap(strings.TrimSpace(string(out)), err)
		}
	})
	return probeErr
}

func explainBwrap(out string, err error) error {
	if readSysctl("kernel.apparmor_restrict_unprivileged_userns") == "1" {
		return fmt.Errorf("bwrap cannot build the sandbox (%s) because AppArmor restricts unprivileged user namespaces "+
			"(kernel.apparmor_restrict_unprivileged_userns=1, the Ubuntu 24.04 default): either allow them with "+
			"sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (and in /etc/sysctl.d to keep it), "+
			"or give bwrap an AppArmor profile that allows userns", out)
	}
	if strings.Contains(out, "namespace") || strings.Contains(out, "uid map") || strings.Contains(out, "Operation not permitted") {
		return fmt.Errorf("bwrap cannot create the sandbox's namespaces (%s): unprivileged user namespaces are off or limited here; "+
			"turn them on (sudo sysctl -w user.max_user_namespaces=15000 and, on Debian, kernel.unprivileged_userns_clone=1), "+
			"or in a container run it with user namespaces allowed", out)
	}
	return fmt.Errorf("bwrap cannot build the sandbox (%s: %v): check that the bubblewrap package works (bwrap --ro-bind / / true)", out, err)
}

// weakCommand is the weak mode's command: lnk's init on the host, with
// Landlock and seccomp only.
func weakCommand(r *Request) (*Command, error) {
	if abi := landlockABI(); abi < weakABI {
		return nil, fmt.Errorf("the weak sandbox needs Landlock ABI %d (Linux 6.12 or newer) to hold the network to the proxy, and this kernel has %d: use the full wall (install bubblewrap and allow user namespaces)", weakABI, abi)
	}
	argv := []string{r.LnkPath, "sandbox", "init", "--weak", "--socket", r.ProxySocket}
	for _, d := range spec.SystemExecDirs {
		argv = append(argv, "--x", d)
	}
	for _, p := range expandAll(r.Policy.Exec) {
		argv = append(argv, "--x", p)
	}
	argv = append(argv, "--x", r.LnkPath)
	for _, p := range expandAll(r.Policy.Writable) {
		argv = append(argv, "--w", p)
	}
	argv = append(argv, "--")
	return &Command{Argv: append(argv, r.Argv...), Env: r.Environ(), Dir: r.dir()}, nil
}
