// Package confine is lnk's wall: it turns a resolved [spec.Policy] and a
// command into the command line that runs it confined, and holds the code
// that runs at the wall (the guard outside it, init inside it).
//
// # Linux
//
// [Wrap] returns, for a [Request]:
//
//	lnk sandbox init --guard [guard flags] -- bwrap [BwrapArgs] -- /run/lnk/lnk sandbox init [init flags] -- command...
//
// [BwrapArgs] is a generator with no build tags and no side effects (it
// reads the file system: what exists, glob matches, protected names), so
// its output is golden-tested (testdata/golden, rewritten with
// `go test -run TestGoldenArgv -update`).
//
// Three processes:
//
//   - the guard (host side, the command the caller runs) makes the
//     placeholders described below, runs bwrap with SIGINT and SIGQUIT
//     ignored (so a Ctrl-C does not kill bwrap and with it the sandbox),
//     forwards SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to
//     init (its host pid comes from bwrap's --info-fd), mirrors the exit
//     code, and removes the placeholders when the sandbox has ended.
//     It refuses to start (exit 125) when the proxy socket or lnk binary
//     is gone.
//   - bwrap: --unshare-all (no network but the sandbox's own loopback),
//     --die-with-parent, --as-pid-1, --cap-drop ALL, --new-session unless
//     KeepSession (enter), --info-fd 3; it links xdg-open,
//     sensible-browser, x-www-browser and www-browser in /run/lnk/bin to
//     the lnk binary, which answers to those names as the browser opener
//     (BROWSER=/run/lnk/bin/xdg-open; see bridges/open).
//   - init (pid 1 of the sandbox): sets itself non-dumpable; puts
//     /run/lnk/bin first on PATH; writes an empty git template folder
//     (GIT_TEMPLATE_DIR: git init copies no hooks) and git's ignore file
//     naming the placeholders; starts the relay on 127.0.0.1:PORT and
//     [::1]:PORT to /run/lnk/proxy.sock (ours, no socat: it hands each
//     accepted socket to the proxy with SCM_RIGHTS, so the proxy serves
//     the client directly, and copies both ways only if the proxy does
//     not take it); checks
//     GET http://lnk.sandbox/health through the relay (else exit 125,
//     the command does not run); opens the daemon session (404 = none);
//     starts the command with Landlock and seccomp; forwards signals to
//     the command's process group; reaps every process; when the command
//     exits, kills what is left in the sandbox, reports the exit on the
//     session, and exits with the command's code (128+N when killed by
//     signal N). A "stop" from the daemon kills everything and exits 143;
//     "pause"/"resume" SIGSTOP/SIGCONT every process; "dial" connects
//     to a port on the sandbox's loopback and carries the connection to
//     the daemon (a login's callback: see [DialRoute]); a dropped session
//     kills everything and exits 125 (fail closed).
//
// The proxy credentials reach init in HTTP_PROXY, never on a command
// line (other users can read command lines).
//
// Against the first contract: the wrapped command starts with the guard,
// not bwrap (a caller that is lnk itself may run the guard in-process,
// as `lnk sandbox run` does, with [RunInit]); [BwrapArgs] returns bwrap's
// arguments only; [Request] has BwrapPath, for a bwrap not on PATH.
//
// # Mount order
//
// Every mount is sorted by the depth of its path, then by kind, so a
// mount always comes after every mount on an ancestor of its path and a
// shallower mount can never undo a deeper one. At equal paths the order
// is: base (ro-bind /, fresh /dev, /proc, tmpfs /tmp and /run), hidden
// (an empty tmpfs for a folder, /dev/null read-only for a file), writable
// (bound read-write), re-allowed reads inside hidden ones (read-only),
// write-denied inside writable ones (read-only), pins (see below),
// protected names and placeholders (read-only), lnk's own dirs (hidden;
// nothing inside them is ever bound). Hidden folders are remounted
// read-only after everything inside them is in place, and /run/lnk (the
// lnk binary and the proxy socket) comes last, inside the fresh /run, so
// nothing masks it. Every bind's source and target exist before bwrap
// runs, so bwrap never creates a mount point on the host.
//
// # Mandatory protection (spec.ProtectedNames)
//
// A name cannot be kept from being created in a host folder the sandbox
// may write by a bind mount unless something exists at that name, and
// Landlock cannot deny one name inside a folder it allows. So:
//
//   - Existing protected files and folders found by a bounded walk of each
//     writable folder (4 levels, 5000 entries, node_modules skipped) are
//     bound read-only on themselves: writing, truncating, removing,
//     renaming onto or over them fails (EROFS or EBUSY), and hard links
//     across the mount fail (EXDEV).
//   - Missing protected names at the top of each writable folder, and
//     inside every .git, .claude and .config folder the walk finds, get a
//     placeholder: the guard creates an empty read-only file (mode 0444)
//     or folder (0555) on the host before bwrap starts, the wall binds it
//     read-only, and the guard removes it (only if it is still the same
//     empty inode) when the sandbox ends. Creating, renaming onto,
//     symlinking or hard-linking that name then fails. A placeholder left
//     by a guard that was killed (SIGKILL) is recognised by its mode and
//     adopted and removed by the next run. Placeholders are visible on
//     the host while the sandbox runs; inside, git ignores them
//     (core.excludesFile=/run/lnk/gitignore, which also carries the
//     person's own global ignore file).
//   - Folders holding protected names (.git, .claude, .config) are bound
//     on themselves ("pinned"), so they cannot be renamed or removed and
//     replaced by a folder of the sandbox's making.
//   - A missing .claude or .config at the top of a writable folder becomes
//     an empty read-only folder for the run.
//   - A missing .git at the top of a writable folder: the guard creates
//     the empty folder (pinned) with a placeholder .git/hooks, so `git init`
//     works and hooks cannot be created. git cannot create a repository
//     without writing .git/config, so in a repository the sandbox creates
//     .git/config is writable during the run. An existing repository's
//     config, config.worktree and hooks, and those of its submodules'
//     git folders (.git/modules/...), stay read-only (so `git init`
//     inside an existing repository fails; commits work).
//   - When the sandbox has ended, the guard looks for git folders the
//     sandbox made (any .git in the writable folders, by the same bounded
//     walk, following .git files and links only to folders inside them,
//     and new folders under known repositories' modules/) and tidies each:
//     its config keeps only settings that run nothing (core's basics,
//     extensions.objectformat, remote url/fetch/pushurl, branch
//     remote/merge), its hooks (bar .sample files), config.worktree and
//     commondir are removed, and stderr says what went. A config that is a
//     link or a hard link is removed unread.
//   - Hidden and write-denied paths that do not exist inside a writable
//     folder get a read-only empty folder placeholder, so they stay absent
//     (macOS-only home secrets under ~/Library are skipped on Linux).
//   - Two sandboxes may share a folder: each guard holds a shared flock on
//     every placeholder it made or adopted, and only the last to end
//     removes it (removing a file another sandbox has a mount on would
//     lift that mount).
//
// A hidden file reads as empty (/dev/null); writing to it inside a
// writable folder is discarded.
//
//   - When the sandbox has ended, protected names it created deeper than
//     the top of a writable folder (where no placeholder stands, say
//     sub/.envrc or sub/.vscode), found by the same bounded walk as
//     anything changed since the run began, are renamed to
//     NAME.lnk-blocked, and stderr says so.
//
// Limits: what the sandbox creates deeper than the top of a writable
// folder (protected names, git folders) is dealt with only when the run
// ends: the person's tools could read it while the sandbox still runs, a
// guard killed with SIGKILL deals with nothing (its placeholders are
// adopted and removed by the next run in the folder), and a protected
// file the person changes on the host during the run is renamed too.
// Existing protected names deeper than the walk are not found.
//
// # The kept session (Request.KeepSession, `lnk sandbox enter`)
//
// A run gets bwrap's --new-session: the terminal it runs on is the
// person's, and a command in the terminal's session could push input
// into it. An SSH session's sandbox (`enter`) keeps the terminal's
// session instead, so its shell has job control and the terminal's
// Ctrl-C reaches the command: the terminal is the SSH session's own,
// which nothing outside reads after it. What keeps that safe is the
// seccomp filter below, which refuses TIOCSTI and TIOCLINUX whatever the
// session: nothing inside can type into the terminal. With the kept
// session the guard and init do not pass on SIGINT and SIGQUIT (the
// terminal sends them to the foreground process group itself), and init
// leaves the command in the terminal's process group, from which a shell
// inside takes the terminal for its jobs.
//
// # Seccomp (init's child, hand-written BPF, amd64 and arm64)
//
// EPERM: socket and socketpair with AF_UNIX (the domain's low 32 bits),
// ioctl TIOCSTI and TIOCLINUX (the command's low 32 bits, so high bits do
// not get round it), clone and unshare with CLONE_NEWUSER, setns, ptrace,
// process_vm_readv/writev, bpf, keyctl, add_key, request_key,
// perf_event_open, userfaultfd, mount, umount2, pivot_root, the new mount
// API, open_by_handle_at, module and kexec loads. ENOSYS (so programs fall
// back): io_uring_setup/enter/register and clone3 (whose flags a filter
// cannot read). Another architecture is killed; x32 calls get ENOSYS.
// The filter goes on the one thread that starts the command (no TSYNC):
// init itself needs its unix socket.
//
// # Landlock (init's child)
//
// Execute only beneath spec.SystemExecDirs, the policy's Exec paths and
// /run/lnk. Write (write, truncate, create, remove, rename/link with
// REFER) only beneath the policy's writable paths, /tmp and /dev/shm;
// write existing files beneath /dev. Reads are the mounts' job. Rights
// the kernel's ABI lacks are left out (ABI 1 has no REFER: cross-folder
// renames are then refused outright; before ABI 3 truncate is not
// checked, and the read-only mounts still stop it). No Landlock at all
// (a kernel before 5.13, or landlock not in lsm=) makes init refuse to
// run the command: without it the spec's [commands] would not hold.
// [Check] says so, with the fix.
//
// # Where the wall cannot stand
//
// [Check] and [Wrap] return one paragraph saying what is wrong and how to
// fix it: bwrap missing; user namespaces off (user.max_user_namespaces=0,
// Debian's kernel.unprivileged_userns_clone=0); Ubuntu's
// kernel.apparmor_restrict_unprivileged_userns=1 when bwrap then fails.
//
// # The weak mode (Request.Weak, only on the person's explicit request)
//
// Where the wall cannot stand, [Request].Weak runs the command with no
// namespaces and no bubblewrap: `lnk sandbox init --weak` on the host
// relays 127.0.0.1:PORT and [::1]:PORT (the host's loopback, so the port
// must be free) to the proxy's socket, checks the proxy's health, keeps
// the session, and starts the command with Landlock and seccomp. It
// prints, every time, what it does not enforce. It needs Landlock ABI 6
// (Linux 6.12+), and refuses to run without it.
//
// Enforced: execute and write as the spec says (TMPDIR is a private
// folder; the host's /tmp is not writable); TCP connections only to the
// proxy port and no TCP listening (Landlock); no signals or abstract unix
// sockets out of the sandbox, no ptrace or /proc/PID/mem of outside
// processes (Landlock); seccomp as in the wall, plus no socket but TCP
// over IPv4 and IPv6 (no UDP, DNS or netlink). init is a subreaper and
// kills every descendant when the command ends.
//
// NOT enforced: hidden paths (home's secrets and deny_read are readable),
// mandatory protection inside writable folders, a private /dev and /proc:
// the command sees the person's other processes and can read their
// command lines and environments (Landlock does not stop ptrace's read
// mode); and if init itself is killed with SIGKILL, the command's
// processes live on (there is no pid namespace to end them).
//
// # macOS (Seatbelt)
//
// [SeatbeltProfile] is a generator with no build tags: it turns a policy
// into a sandbox-exec profile (SBPL), golden-tested for every fixture
// spec (testdata/seatbelt, rewritten with
// `go test -run TestGoldenSeatbelt -update`). The test reads each profile
// back with a small SBPL reader (balance, quoting, known filters, regexes
// that compile and are anchored) and evaluates it, last matching rule
// wins as in Seatbelt, against the spec's own algebra
// (spec.Policy.CanRead and CanWrite) on probe paths: the profile may only
// ever be stricter, and only where this section says so.
//
// [Wrap] on macOS returns:
//
//	/usr/bin/sandbox-exec -p PROFILE -- lnk sandbox init --seatbelt --port PORT --socket SOCK --tmp DIR -- command...
//
// Init runs inside the profile: it checks the proxy's health on
// 127.0.0.1:PORT (the command's way out, which the daemon must serve on
// loopback TCP behind the sandbox's secret), opens the daemon session on
// the proxy's unix socket SOCK (so the daemon learns init's pid from the
// connection), runs the command in a session of its own (the terminal is
// not its controlling terminal: no TIOCSTI, no job-control stops, as with
// bwrap's --new-session), passes signals on, carries out stop, pause and
// resume on its process group, mirrors
// the exit code and removes the private temp folder DIR (TMPDIR). It
// links the browser openers (xdg-open and the like) to lnk in DIR/bin,
// first on PATH, and sets BROWSER to one: a page opens through the
// proxy's open bridge, as on Linux (macOS's open(1) needs
// LaunchServices, which the profile denies).
//
// The profile, in order (Seatbelt applies the last rule that matches):
//
//   - (deny default); processes may fork, see and signal only processes
//     of the same sandbox; sysctl reads, preference reads, POSIX
//     semaphores, the notification center's shared memory, ptys, and
//     mapping code (programs are limited by process-exec; a library
//     mapped from a writable folder runs no more than an allowed
//     interpreter could).
//   - process-exec: spec.SystemExecDirs, DarwinExecDirs (/System,
//     /Library/Apple, /private/var/select), the policy's Exec, the lnk
//     binary, and with [commands.macos] developer_tools
//     /Library/Developer and /Applications/Xcode*.app.
//   - file-read* everywhere; then, sorted by path length and at equal
//     length hidden < writable < re-allowed (the order of the spec's
//     algebra: a deeper rule beats a shallower one, re-allow beats deny):
//     hidden paths deny read and write, writable paths allow both,
//     re-allowed reads allow reading (and stat of the folders between the
//     hidden path and them). Then deny_write denies writes whatever
//     allowed them (deny beats allow), protected names are denied by one
//     regex per writable root, anchored at the root, any depth, every
//     ASCII letter in either case (APFS ignores case, so .GIT/HOOKS is
//     .git/hooks), existing protected files found by the bounded walk are
//     denied by path, and existing .git, .claude and .config folders are
//     pinned (their own node: not renamed or removed). lnk's own dirs are
//     denied last, so nothing re-opens them. The private temp folder is
//     writable.
//   - network: outbound only to localhost:PORT (the proxy) and to the
//     proxy's socket; binding and accepting on loopback (a login's
//     callback, a dev server reached from the browser). No DNS: names are
//     the proxy's to resolve. Mode "host" allows all network, loudly.
//
// Mach services (mach-lookup) are limited to [MachServices]:
// opendirectoryd's libinfo and membership (user and group names: whoami,
// git, ssh, every getpwuid), the notification center (notify(3), used by
// libc for time zones and the like), syslog and logd (logging calls),
// trustd and trustd.agent (TLS certificate checks: curl, git, Go, Python
// with the system's trust store), and dirhelper (the per-user temp and
// cache folders). Left out on purpose: LaunchServices (opening an app or
// a URL outside the sandbox: pages open through the proxy's bridge),
// securityd and the keychain, the pasteboard, Apple events (scripting
// other apps), cfprefsd (it writes preferences on the caller's behalf),
// FSEvents (it reports changes anywhere, hidden paths included),
// distributed notifications, fonts, audio and power management.
//
// Quoting: a path goes into a string literal ("…": a backslash and a
// double quote escaped, nothing else), or into a regex (#"…", which the
// reader takes raw to the next quote: metacharacters are escaped with a
// backslash, and a quote or backslash in a path becomes "." in a rule
// that denies, and is an error in a rule that allows). A path with a
// control character or invalid UTF-8 is an error: the profile is not
// made and the command does not run. A fuzzer checks that every path
// reads back exactly and leaves the profile's shape as it was.
//
// Globs become regexes anchored at the root they were written against
// (the folder for a relative pattern, home for ~/), never at the working
// folder: "**" is zero or more whole components, "*" and "?" stay inside
// a component, a class of letters, digits, '.', '_' and ranges converts
// exactly (any other class becomes one character of any kind, wider,
// which an allowing rule refuses), and a match covers its subtree.
//
// Stricter than the spec's algebra, or not enforced, on macOS: a hidden
// path is refused (EPERM), not empty; pinned .git, .claude and .config
// folders cannot be renamed or removed; protected names under a glob's
// matches are protected too; .git/config is protected in every
// repository, new ones included, so git init and git clone into a
// writable folder fail (Linux lets a new repository write its config and
// tidies it when the run ends: macOS has no guard outside the profile
// yet to do that). A repository the sandbox creates can get
// hooks by renaming a folder it filled to .git (Seatbelt cannot tell a
// rename from a mkdir; Linux's guard tidies such folders after the run,
// macOS's does not yet); a process that leaves the command's process
// group outlives a stop; `enter` (Request.KeepSession) gets a session of
// its own too, so a shell there has no job control; the sandbox shares
// the host's loopback, so servers it starts are reachable from the
// host, while it reaches none of the host's own but the proxy.
//
// # Windows (the WRITE_RESTRICTED token runner)
//
// `lnk sandbox windows-acl-run` keeps the argv contract of the reference
// runner (../shared/seeds/windows-acl-runner.d.ts):
//
//	--workspace DIR --temp DIR --mode read-only|workspace-write [--write-sid SID] -- ARGV...
//
// [PlanWinRun] is the pure planner, tested on Linux with golden plans
// (testdata/windows, `go test -run TestGoldenWinPlan -update`); the
// applier (winrun_windows.go) carries a plan out with
// golang.org/x/sys/windows:
//
//   - the token: the caller's, every privilege but SeChangeNotify removed
//     (DISABLE_MAX_PRIVILEGE), WRITE_RESTRICTED with the restricting SIDs
//     logon SID, Everyone and, in workspace-write only, the workspace's
//     write SID. A write passes only if the user's SIDs and one restricting
//     SID are both granted it; reads are not checked against the list.
//     Authenticated Users, INTERACTIVE and LOCAL are left out of the list
//     in both modes, so folders that grant them write (Public, a drive's
//     root) are not writable. The token's default DACL grants the user,
//     the logon SID, SYSTEM and the write SID, so the command's own
//     processes and pipes work.
//   - the write SID ([WriteSID]): S-1-4-A-B-C-D, the four sub-authorities
//     the first 16 bytes (little-endian uint32s) of SHA-256 of
//     "lnk-sandbox windows write-sid v1\x00" and the normalized root
//     ([NormalizeWinPath]: absolute, '\' separators, no \\?\ prefix, "."
//     and ".." resolved, no trailing separator, upper case). S-1-4 is the
//     non-unique authority: no account or group has such a SID, so only
//     ACEs lnk grants name it, and one folder always has one SID.
//     --write-sid must equal it, or the runner refuses.
//   - ACEs: without --write-sid in workspace-write, the write SID is
//     granted Modify (read, write, execute, delete; never WRITE_DAC or
//     WRITE_OWNER), inherited by files and folders, on the workspace
//     (left standing: the reuse cache, and a grant already there is not
//     re-written) and on the temp folder (revoked when the command has
//     ended). With --write-sid the caller owns the ACEs: none is granted
//     or revoked, and TMP and TEMP point at --temp. Read-only grants
//     nothing, not even the NUL device.
//   - the runner puts itself in a job object with KILL_ON_JOB_CLOSE and no
//     breakaway before it starts the command, so the command and all it
//     starts die with the runner; the command inherits the caller's
//     stdio and the runner's environment, and its exit code is mirrored.
//   - command line: [WindowsCommandLine] quotes argv so that
//     CommandLineToArgvW gives it back exactly (a round-trip fuzzer checks
//     it against a parser of those rules written in the tests); a batch
//     file's arguments with characters cmd.exe reads itself are refused.
//   - the session: when [SessionSocketEnv] names the proxy's socket (Wrap
//     sets it, and the runner takes it out of the command's environment),
//     the runner opens the sandbox's daemon session there before the
//     command starts (the daemon reads its pid with
//     SIO_AF_UNIX_GETPEERPID), reports start and exit, ends the whole job
//     on "stop" (143) or when the daemon goes away (125); pause and resume
//     are not supported on Windows and say so. Without the variable (the
//     runner on its own) there is no session.
//   - failures: every failure of the runner's own prints one line
//     "windows-acl-run: <detail>" and exits 127 ([WinRunFailure]); the
//     command never starts unless the token, the job and the grants are
//     all in place.
//
// [Wrap] on Windows runs the folder as the workspace (workspace-write
// when the spec writes the folder) with a new private temp folder, and
// points HTTP_PROXY and the rest at the proxy on 127.0.0.1. That token
// confines writes only: reads, the network and programs are NOT
// confined, other allow_write paths are not writable, and deny_write and
// protected names inside the folder are not protected; `lnk sandbox
// permissions` and `doctor` say so. The control pipe's ACL grants the
// user's SID alone, so the restricted token (whose writes need a
// restricting SID too) cannot open it for writing.
//
// Other systems: [Wrap] and [Check] return [ErrUnsupported].
package confine
