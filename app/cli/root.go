package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes of lnk's own failures. A wrapped command's code is mirrored.
const (
	ExitOK      = 0
	ExitInvalid = 1   // a spec or input does not check out
	ExitUsage   = 2   // the command line is wrong
	ExitFailure = 125 // lnk itself failed; the command did not run
)

// exitError carries an exit code and a one-line message through cobra.
type exitError struct {
	code int
	msg  string // "" prints nothing (the verb has said it already)
}

func (e *exitError) Error() string { return e.msg }

// failf returns an error that exits with code and prints
// "lnk: <what>: <fix>".
func failf(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

// Main runs the CLI with args (args[0] is the program name) and returns
// the exit code.
func Main(args []string) int {
	return run(args, os.Stdin, os.Stdout, os.Stderr)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if oa, ok := openerArgs(args); ok {
		args = oa // inside a sandbox: $BROWSER, xdg-open and the like
	}
	name := filepath.Base(args[0])
	root := newRoot(name)
	root.SetArgs(args[1:])
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(stderr, "lnk: %s\n", ee.msg)
		}
		return ee.code
	}
	// cobra's own errors: unknown verbs and flags.
	fmt.Fprintf(stderr, "lnk: %s: see '%s --help'\n", strings.TrimSuffix(err.Error(), "\n"), name)
	return ExitUsage
}

// newRoot builds the command tree. The binary answers as "lnk" and as
// "lnk-sandbox"; both take "sandbox <verb>".
func newRoot(name string) *cobra.Command {
	if name != "lnk-sandbox" {
		name = "lnk"
	}
	root := &cobra.Command{
		Use:           name,
		Short:         "lnk runs programs in a sandbox that sees only what its spec grants",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	sb := &cobra.Command{
		Use:   "sandbox",
		Short: "Run and manage sandboxes",
		Long: `Run and manage sandboxes. A sandboxed command sees only the folders,
programs and network its spec grants; its network goes through lnk's proxy.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return failf(ExitUsage, "unknown verb %q: see '%s sandbox --help'", args[0], name)
			}
			return c.Help()
		},
	}
	root.AddCommand(sb)
	// Verbs, in help order. Each lives in its own file.
	sb.AddCommand(
		newSpecCmd(),
		newPermissionsCmd(),
		newRunCmd(),
		newWrapCmd(),
		newEnterCmd(),
		newListCmd(),
		newStopCmd(),
		newPauseCmd(),
		newResumeCmd(),
		newLogCmd(),
		newAnswerCmd(),
		newStatusCmd(),
		newDoctorCmd(),
		newDaemonCmd(),
		newTrayCmd(),
		newInstallCmd(),
		newUninstallCmd(),
		newConnectCmd(),
		newOpenCmd(),
		newToolCmd(),
		newMCPRemoteCmd(),
		newInitCmd(),
		newWindowsACLRunCmd(),
	)
	return root
}
