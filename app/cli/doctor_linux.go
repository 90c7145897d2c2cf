package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/sys/unix"
)

// platformChecks are the wall's needs on Linux.
func platformChecks() []check {
	out := []check{userNSCheck(), appArmorCheck()}
	out = append(out, bwrapChecks()...)
	return append(out, landlockCheck(), seccompCheck())
}

func readSysctl(name string) (string, bool) {
	b, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(name, ".", "/"))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

func userNSCheck() check {
	c := check{name: "user namespaces", ok: true, detail: "enabled"}
	if v, ok := readSysctl("user.max_user_namespaces"); ok && v == "0" {
		c.ok, c.detail = false, "user.max_user_namespaces is 0"
		c.fix = "sudo sysctl -w user.max_user_namespaces=15000 (and set it in /etc/sysctl.d/)"
	}
	if v, ok := readSysctl("kernel.unprivileged_userns_clone"); ok && v == "0" {
		c.ok, c.detail = false, "kernel.unprivileged_userns_clone is 0"
		c.fix = "sudo sysctl -w kernel.unprivileged_userns_clone=1 (and set it in /etc/sysctl.d/)"
	}
	return c
}

func appArmorCheck() check {
	v, ok := readSysctl("kernel.apparmor_restrict_unprivileged_userns")
	if !ok || v == "0" {
		return check{name: "AppArmor", ok: true, detail: "does not restrict unprivileged user namespaces"}
	}
	return check{name: "AppArmor", optional: true,
		detail: "restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1): bwrap may fail",
		fix:    "add an AppArmor profile allowing userns for /usr/bin/bwrap (Ubuntu ships one as bwrap-userns-restrict), or sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"}
}

func bwrapChecks() []check {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return []check{{name: "bwrap", detail: "not found", fix: "install the bubblewrap package"}}
	}
	ver, _ := exec.Command(path, "--version").Output()
	found := check{name: "bwrap", ok: true, detail: path + " " + strings.TrimSpace(string(ver))}
	out, err := exec.Command(path, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
		"--dev", "/dev", "--proc", "/proc", "true").CombinedOutput()
	works := check{name: "bwrap as you", ok: err == nil, detail: "creates a sandbox with every namespace"}
	if err != nil {
		msg := strings.TrimSpace(string(out))
		works.detail = "fails: " + orText(msg, err.Error())
		switch {
		case strings.Contains(msg, "RTM_NEWADDR") || strings.Contains(msg, "Permission denied"):
			works.fix = "AppArmor or the kernel refuses user namespaces to bwrap: see the AppArmor line above"
		case strings.Contains(msg, "No permissions to creating new namespace") || strings.Contains(msg, "Operation not permitted"):
			works.fix = "enable unprivileged user namespaces (see the user namespaces line)"
		default:
			works.fix = "run the bwrap command by hand to see why: bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc true"
		}
	}
	return []check{found, works}
}

func landlockCheck() check {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == unix.EOPNOTSUPP:
		return check{name: "Landlock", detail: "built into the kernel but disabled at boot",
			fix: "add landlock to the kernel's lsm= boot parameter (e.g. lsm=landlock,lockdown,yama,apparmor,bpf)"}
	case errno != 0:
		return check{name: "Landlock", detail: "not in this kernel (" + errno.Error() + ")",
			fix: "use a kernel of 5.13 or later with CONFIG_SECURITY_LANDLOCK"}
	}
	return check{name: "Landlock", ok: true, detail: fmt.Sprintf("ABI %d", abi)}
}

func seccompCheck() check {
	// With a NULL filter, a kernel that has seccomp filters answers
	// EFAULT; one without answers EINVAL.
	err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, 0, 0, 0)
	if errors.Is(err, unix.EFAULT) {
		return check{name: "seccomp", ok: true, detail: "filters supported"}
	}
	return check{name: "seccomp", detail: fmt.Sprintf("filters not supported (%v)", err),
		fix: "use a kernel with CONFIG_SECCOMP_FILTER"}
}
