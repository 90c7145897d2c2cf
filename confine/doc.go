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
//     KeepSession (enter), --info-fd 3.
//   - init (pid 1 of the sandbox): sets itself non-dumpable; writes
//     /run/lnk/bin/xdg-open (BROWSER; it refuses with a clear message
//     until `lnk sandbox open` exists), an empty git template folder
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
//     "pause"/"resume" SIGSTOP/SIGCONT every process; a dropped session
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
// Other systems: [Wrap] and [Check] return [ErrUnsupported] for now.
package confine
