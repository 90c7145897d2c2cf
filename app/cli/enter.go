package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/client"
	"lnk.dev/sandbox/spec"
)

// sftpServers are where systems keep OpenSSH's sftp-server, which runs
// inside the sandbox when sshd hands a session the internal-sftp
// subsystem (Debian and Ubuntu, Fedora and RHEL, Arch, Alpine and macOS,
// Gentoo, SUSE).
var sftpServers = []string{
	"/usr/lib/openssh/sftp-server",
	"/usr/libexec/openssh/sftp-server",
	"/usr/lib/ssh/sftp-server",
	"/usr/libexec/sftp-server",
	"/usr/lib/misc/sftp-server",
	"/usr/libexec/ssh/sftp-server",
}

func newEnterCmd() *cobra.Command {
	var (
		file, folder string
		check        bool
	)
	c := &cobra.Command{
		Use:   "enter --spec FILE --folder DIR [--check]",
		Short: "Run an SSH session in a sandbox (an OpenSSH forced command)",
		Long: `Run an SSH session inside a sandbox. Meant as an OpenSSH forced command
in authorized_keys:

  restrict,pty,command="lnk-sandbox sandbox enter --spec FILE --folder DIR" ssh-ed25519 AAAA…

Without SSH_ORIGINAL_COMMAND it starts your login shell ($SHELL -l) in the
sandbox's folder; with one it runs it there as OpenSSH would
($SHELL -c "$SSH_ORIGINAL_COMMAND"), so ssh HOST CMD, scp and sftp all run
inside (sshd's internal-sftp runs the system's sftp-server inside). The
session keeps its terminal, so job control and Ctrl-C work.

The spec is read at every session exactly as a run reads it, refusals and
all: a folder that became a symlink since is refused. --check reads it the
same way, prints what a session may do (as 'permissions' does) and runs
nothing. The daemon starts on its own, headless, if it is not running.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if folder == "" {
				return failf(ExitUsage, "enter: --folder DIR is required: name the sandbox's folder (under sshd the current folder is the home folder)")
			}
			stderr := c.ErrOrStderr()
			p, err := loadPolicy(stderr, file, folder)
			if err != nil {
				return refused(err)
			}
			argv, err := sessionArgv(os.Getenv("SHELL"), os.Getenv("SSH_ORIGINAL_COMMAND"), findSftpServer)
			if err != nil {
				return err
			}
			if check {
				spec.Describe(c.OutOrStdout(), p)
				fmt.Fprintf(stderr, "enter --check: the spec checks out; a session would run %s in %s; nothing was run\n", strings.Join(argv, " "), p.Folder)
				return nil
			}
			return enter(c, stderr, p, argv)
		},
	}
	c.Flags().StringVar(&file, "spec", "", "the spec `FILE` (default: lnk's default spec)")
	c.Flags().StringVar(&folder, "folder", "", "the sandbox's folder `DIR` (required)")
	c.Flags().BoolVar(&check, "check", false, "read the spec as a session would, print what it may do, and run nothing")
	return c
}

// refused says that the session did not start because its spec does not
// check out (the reasons are on the lines above), keeping the exit code.
func refused(err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return &exitError{code: ee.code, msg: "the SSH session was refused: " + ee.msg}
	}
	return err
}

// sessionArgv is what an SSH session runs inside: the login shell, or the
// client's command through the shell as OpenSSH runs it. sshd hands the
// internal-sftp subsystem to a forced command as SSH_ORIGINAL_COMMAND
// "internal-sftp [ARGS]": it becomes the system's sftp-server, which runs
// inside like everything else. An external subsystem
// (/usr/lib/openssh/sftp-server) arrives as its path and runs through the
// shell.
func sessionArgv(shell, original string, sftpServer func() (string, error)) ([]string, error) {
	if shell == "" {
		shell = "/bin/sh"
	}
	if original == "" {
		return []string{shell, "-l"}, nil
	}
	if f := strings.Fields(original); len(f) > 0 && f[0] == "internal-sftp" {
		server, err := sftpServer()
		if err != nil {
			return nil, err
		}
		return append([]string{server}, f[1:]...), nil
	}
	return []string{shell, "-c", original}, nil
}

// findSftpServer returns the system's sftp-server program.
func findSftpServer() (string, error) {
	for _, p := range sftpServers {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", failf(127, "sftp: sshd's internal-sftp runs the system's sftp-server inside the sandbox, and none was found in %s: install OpenSSH's sftp-server (openssh-sftp-server on Debian and Ubuntu)", strings.Join(sftpServers, ", "))
}

// enter wraps argv with the kept terminal session and runs it, mirroring
// its exit code.
func enter(c *cobra.Command, stderr io.Writer, p *spec.Policy, argv []string) error {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SSH_ORIGINAL_COMMAND=") {
			env = append(env, kv)
		}
	}
	name := "ssh"
	if from, _, ok := strings.Cut(os.Getenv("SSH_CLIENT"), " "); ok {
		name = "ssh " + from // as list and the log show it
	}
	req := &apitype.WrapRequest{Name: name, Policy: p, Argv: argv, Env: env, KeepSession: true}
	ctx := c.Context()
	// As wrap does: ask at once; the daemon may not run (no desktop,
	// nobody logged in), and then it starts here, headless.
	resp, err := (&client.Client{}).Wrap(ctx, req)
	if errors.Is(err, client.ErrNoDaemon) || err != nil && os.Getenv("LNK_SANDBOX") != "" {
		dc, cerr := daemonClient(ctx, stderr)
		if cerr != nil {
			return cerr
		}
		resp, err = dc.Wrap(ctx, req)
	}
	if err != nil {
		return daemonErr(err)
	}
	sock, _ := (&client.Client{}).SocketPath()
	err = runSession(c, resp)
	var ee *exitError
	if errors.As(err, &ee) && ee.code >= ExitFailure && ee.code <= 127 {
		abandon(sock, resp.ID)
	}
	return err
}

// runSession runs the confining command in this process's own process
// group and session: the terminal's Ctrl-C reaches the command directly
// (the wall ignores it), and a shell inside takes the terminal for its
// jobs. On Linux lnk becomes the wall's guard itself.
func runSession(c *cobra.Command, w *apitype.WrapResponse) error {
	if inProcessGuard(w) && c.InOrStdin() == os.Stdin && c.OutOrStdout() == os.Stdout {
		return runGuard(w)
	}
	cmd := exec.Command(w.Argv[0], w.Argv[1:]...)
	cmd.Env, cmd.Dir = w.Env, w.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr()
	// The terminal sends Ctrl-C and Ctrl-\ to the command itself; they
	// must not end enter, which holds the session (the wall ignores them
	// too). The others are passed on.
	signal.Ignore(os.Interrupt, syscall.SIGQUIT)
	var pass []os.Signal
	for _, s := range forwarded {
		if s != os.Interrupt && s != syscall.SIGQUIT {
			pass = append(pass, s)
		}
	}
	return startWall(cmd, pass)
}
