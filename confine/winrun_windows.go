//go:build windows

package confine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

var procCreateRestrictedToken = windows.NewLazySystemDLL("advapi32.dll").NewProc("CreateRestrictedToken")

// CreateRestrictedToken flags.
const (
	disableMaxPrivilege = 0x1 // every privilege but SeChangeNotify removed
	writeRestricted     = 0x8 // restricting SIDs are checked for writes only
)

// RunWindowsACL is the body of `lnk sandbox windows-acl-run`: it carries
// out the plan of [PlanWinRun]. Every failure of its own prints one line
// "windows-acl-run: <detail>" and returns 127, and the command is never
// started unrestricted: the token is made, the job holds the runner and
// the grants are in place before the command starts, or it does not.
func RunWindowsACL(args []string, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "windows-acl-run: "+format+"\n", a...)
		return WinRunFailure
	}
	plan, err := PlanWinRun(args)
	if err != nil {
		return fail("%v", err)
	}
	path, err := checkWinRun(plan)
	if err != nil {
		return fail("%v", err)
	}
	job, err := killOnCloseJob()
	if err != nil {
		return fail("the job object that ends the command with the runner: %v", err)
	}
	defer runtime.KeepAlive(job) // closing it (at exit) kills what is left
	token, err := restrictedToken(plan)
	if err != nil {
		return fail("the restricted token: %v", err)
	}
	defer token.Close()
	defer revokeAll(plan.RevokeOnExit, stderr)
	for _, a := range plan.Grant {
		if err := setACE(a, windows.GRANT_ACCESS); err != nil {
			return fail("grant %s write access to %s: %v", a.SID, a.Path, err)
		}
	}
	for _, kv := range plan.Env {
		k, v, _ := cut(kv)
		if err := os.Setenv(k, v); err != nil {
			return fail("set %s: %v", k, err)
		}
	}
	sess, err := runnerSession()
	if err != nil {
		return fail("%v", err)
	}
	return runRestricted(plan, path, token, job, sess, stderr)
}

// checkWinRun checks what the plan needs of the machine: both folders,
// and the program (a batch file's arguments checked again once found).
func checkWinRun(plan *WinPlan) (string, error) {
	for _, d := range []string{plan.Workspace, plan.Temp} {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("%s is not a folder: create it first", d)
		}
	}
	path, err := exec.LookPath(plan.Program)
	if err != nil {
		return "", fmt.Errorf("%s: command not found: %v", plan.Program, err)
	}
	if err := CheckBatchArgs(path, plan.Argv[1:]); err != nil {
		return "", err
	}
	return path, nil
}

// runRestricted starts the command under the token, keeps the session,
// and returns the command's exit code.
func runRestricted(plan *WinPlan, path string, token windows.Token, job windows.Handle, sess *session, stderr io.Writer) int {
	signal.Ignore(os.Interrupt) // Ctrl-C reaches the command; the runner stays to mirror its code
	// The environment is the runner's own, set explicitly: with a token
	// and no Env, Go would build the token user's default block instead,
	// without the proxy and the temp folder.
	cmd := &exec.Cmd{Path: path, Args: plan.Argv, Env: os.Environ(), Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Token: syscall.Token(token), CmdLine: plan.CommandLine}}
	if err := cmd.Start(); err != nil {
		sess.send(map[string]any{"event": "exit", "code": WinRunFailure})
		fmt.Fprintf(stderr, "windows-acl-run: start %s under the restricted token: %v\n", path, err)
		return WinRunFailure
	}
	sess.send(map[string]any{"event": "start", "pid": cmd.Process.Pid})
	var ended atomic.Bool // set before the exit event: the daemon may close the session then
	if sess != nil {
		go followSession(sess, job, &ended, stderr)
	}
	_ = cmd.Wait()
	ended.Store(true)
	code := cmd.ProcessState.ExitCode()
	sess.send(map[string]any{"event": "exit", "code": code})
	return code
}

// SessionSocketEnv names the proxy's socket to the runner when a daemon
// keeps the sandbox (Wrap sets it): the runner opens the sandbox's
// session there, as init does on Linux and macOS. Without it (the
// runner on its own) there is no session.
const SessionSocketEnv = "LNK_SESSION_SOCKET"

// runnerSession opens the daemon session named by SessionSocketEnv, and
// takes the variable out of the command's environment.
func runnerSession() (*session, error) {
	socket := os.Getenv(SessionSocketEnv)
	if socket == "" {
		return nil, nil
	}
	os.Unsetenv(SessionSocketEnv)
	user, pass, _, err := proxyCreds()
	if err != nil {
		return nil, err
	}
	s, err := openSession("unix", socket, user, pass)
	if err != nil {
		return nil, fmt.Errorf("the sandbox's session: %v: check that lnk's daemon runs", err)
	}
	return s, nil
}

// followSession carries out the daemon's commands: stop ends every
// process of the job (the runner too) with 143, a session that drops
// with 125. Windows has no stop signal for a process tree, so pause and
// resume are refused with a line on stderr.
func followSession(sess *session, job windows.Handle, ended *atomic.Bool, stderr io.Writer) {
	for c := range sess.commands() {
		switch {
		case ended.Load():
			return
		case c.Cmd == "stop":
			windows.TerminateJobObject(job, 143)
		case c.Cmd == "pause" || c.Cmd == "resume":
			fmt.Fprintf(stderr, "windows-acl-run: %s is not supported on Windows; the command runs on\n", c.Cmd)
		}
	}
	if !ended.Load() {
		fmt.Fprintf(stderr, "windows-acl-run: %v\n", errDaemonGone)
		windows.TerminateJobObject(job, exitFailure)
	}
}

func cut(kv string) (k, v string, ok bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' && i > 0 {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// killOnCloseJob puts the runner in a new job that kills every process in
// it when its last handle closes (the runner's exit) and lets none break
// away; the command and its children inherit it.
func killOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// restrictedToken makes the command's primary token: the caller's, with
// every privilege but SeChangeNotify removed, WRITE_RESTRICTED to the
// plan's restricting SIDs, and a default DACL its own objects can live
// with.
func restrictedToken(plan *WinPlan) (windows.Token, error) {
	var cur windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(),
		windows.TOKEN_DUPLICATE|windows.TOKEN_QUERY|windows.TOKEN_ASSIGN_PRIMARY|windows.TOKEN_ADJUST_DEFAULT, &cur); err != nil {
		return 0, err
	}
	defer cur.Close()
	logon, err := logonSID(cur)
	if err != nil {
		return 0, err
	}
	var sids []windows.SIDAndAttributes
	for _, s := range plan.Restricting {
		sid := logon
		if s != SIDLogon {
			if sid, err = windows.StringToSid(s); err != nil {
				return 0, fmt.Errorf("SID %s: %v", s, err)
			}
		}
		sids = append(sids, windows.SIDAndAttributes{Sid: sid})
	}
	var out windows.Token
	r, _, e := procCreateRestrictedToken.Call(uintptr(cur), disableMaxPrivilege|writeRestricted,
		0, 0, 0, 0, uintptr(len(sids)), uintptr(unsafe.Pointer(&sids[0])), uintptr(unsafe.Pointer(&out)))
	runtime.KeepAlive(sids)
	if r == 0 {
		return 0, fmt.Errorf("CreateRestrictedToken: %v", e)
	}
	if err := setDefaultDACL(out, cur, logon, plan); err != nil {
		out.Close()
		return 0, err
	}
	return out, nil
}

// logonSID is the token's logon-session SID (S-1-5-5-X-Y).
func logonSID(t windows.Token) (*windows.SID, error) {
	groups, err := t.GetTokenGroups()
	if err != nil {
		return nil, err
	}
	for _, g := range groups.AllGroups() {
		if g.Attributes&windows.SE_GROUP_LOGON_ID == windows.SE_GROUP_LOGON_ID {
			return g.Sid.Copy()
		}
	}
	return nil, errors.New("this process's token has no logon SID: run from an interactive logon session")
}

// setDefaultDACL gives objects the command creates without an inherited
// DACL (its processes, threads, pipes) a DACL its restricted token can
// still write: the user, the logon SID, SYSTEM and the write SID.
func setDefaultDACL(t, cur windows.Token, logon *windows.SID, plan *WinPlan) error {
	user, err := cur.GetTokenUser()
	if err != nil {
		return err
	}
	system, err := windows.StringToSid("S-1-5-18")
	if err != nil {
		return err
	}
	holders := []*windows.SID{user.User.Sid, logon, system}
	if plan.Mode == WinWorkspaceWrite {
		w, err := windows.StringToSid(plan.WriteSID)
		if err != nil {
			return err
		}
		holders = append(holders, w)
	}
	var entries []windows.EXPLICIT_ACCESS
	for _, s := range holders {
		entries = append(entries, windows.EXPLICIT_ACCESS{
			AccessPermissions: windows.GENERIC_ALL, AccessMode: windows.GRANT_ACCESS, Inheritance: windows.NO_INHERITANCE,
			Trustee: windows.TRUSTEE{TrusteeForm: windows.TRUSTEE_IS_SID, TrusteeType: windows.TRUSTEE_IS_UNKNOWN, TrusteeValue: windows.TrusteeValueFromSID(s)},
		})
	}
	acl, err := windows.ACLFromEntries(entries, nil)
	if err != nil {
		return err
	}
	dd := struct{ dacl *windows.ACL }{acl}
	return windows.SetTokenInformation(t, windows.TokenDefaultDacl, (*byte)(unsafe.Pointer(&dd)), uint32(unsafe.Sizeof(dd)))
}

// setACE grants (or revokes) the write SID's inherited access on a folder.
// A grant already in place is left alone (the workspace's standing ACE is
// the reuse cache: re-writing a DACL walks the whole tree).
func setACE(a WinACE, mode windows.ACCESS_MODE) error {
	sid, err := windows.StringToSid(a.SID)
	if err != nil {
		return err
	}
	sd, err := windows.GetNamedSecurityInfo(a.Path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	if mode == windows.GRANT_ACCESS && hasGrant(dacl, sid, a.Mask) {
		return nil
	}
	ea := windows.EXPLICIT_ACCESS{
		AccessPermissions: windows.ACCESS_MASK(a.Mask), AccessMode: mode, Inheritance: windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT,
		Trustee: windows.TRUSTEE{TrusteeForm: windows.TRUSTEE_IS_SID, TrusteeType: windows.TRUSTEE_IS_UNKNOWN, TrusteeValue: windows.TrusteeValueFromSID(sid)},
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{ea}, dacl)
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(a.Path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
}

// hasGrant reports whether dacl has an explicit, inheritable allow ACE
// for sid with at least mask.
func hasGrant(dacl *windows.ACL, sid *windows.SID, mask uint32) bool {
	if dacl == nil {
		return false
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if windows.GetAce(dacl, i, &ace) != nil {
			return false
		}
		const inherit = windows.OBJECT_INHERIT_ACE | windows.CONTAINER_INHERIT_ACE
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Header.AceFlags&windows.INHERITED_ACE != 0 ||
			ace.Header.AceFlags&inherit != inherit || uint32(ace.Mask)&mask != mask {
			continue
		}
		if (*windows.SID)(unsafe.Pointer(&ace.SidStart)).Equals(sid) {
			return true
		}
	}
	return false
}

// revokeAll removes the temp grant when the command has ended. A failure
// is said, but the command's own exit code still stands.
func revokeAll(list []WinACE, stderr io.Writer) {
	for _, a := range list {
		if err := setACE(a, windows.REVOKE_ACCESS); err != nil {
			fmt.Fprintf(stderr, "windows-acl-run: revoke %s's access to %s: %v (remove it with icacls %q /remove %s)\n", a.SID, a.Path, err, a.Path, a.SID)
		}
	}
}
