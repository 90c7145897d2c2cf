package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/client"
)

// wrapFlags are the flags wrap and run share.
type wrapFlags struct {
	spec, folder, name string
}

func (f *wrapFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.spec, "spec", "", "the spec `FILE` (default: lnk's default spec)")
	c.Flags().StringVar(&f.folder, "folder", "", "the sandbox's folder `DIR` (default: the current folder)")
	c.Flags().StringVar(&f.name, "name", "", "the sandbox's `NAME` in list and log (default: the command's)")
	c.Flags().SetInterspersed(false)
}

// wrap resolves the spec here (the caller's HOME, folder and PATH) and asks
// the daemon for the confining command.
func (f *wrapFlags) wrap(ctx context.Context, stderr io.Writer, argv []string) (*apitype.WrapResponse, error) {
	if len(argv) == 0 {
		return nil, failf(ExitUsage, "no command: give it after --, e.g. 'lnk sandbox run -- bash'")
	}
	p, err := loadPolicy(stderr, f.spec, f.folder)
	if err != nil {
		return nil, err
	}
	req := &apitype.WrapRequest{Name: f.name, Policy: p, Argv: argv, Env: os.Environ()}
	// Ask at once (one round trip on the hot path); start the daemon only
	// when nothing answered, which means nothing was sent.
	resp, err := (&client.Client{}).Wrap(ctx, req)
	if errors.Is(err, client.ErrNoDaemon) || err != nil && os.Getenv("LNK_SANDBOX") != "" {
		c, cerr := daemonClient(ctx, stderr)
		if cerr != nil {
			return nil, cerr
		}
		resp, err = c.Wrap(ctx, req)
	}
	if err != nil {
		return nil, daemonErr(err)
	}
	return resp, nil
}

func newWrapCmd() *cobra.Command {
	var (
		f      wrapFlags
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "wrap [--spec FILE] [--folder DIR] [--name N] [--json] -- CMD [ARG...]",
		Short: "Print the command line that runs CMD in a sandbox",
		Long: `Register a sandbox for CMD and print the command that runs it confined,
for the caller to run itself. By default a shell-quoted line (env, cd and
the command); with --json a stable object for harnesses:

  {"id": "…", "argv": ["…"], "env": ["K=V", …], "dir": "…"}

Run argv with exactly env (replacing, not adding to, the caller's) in dir.
A wrapped command not started within 10 minutes expires.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			resp, err := f.wrap(c.Context(), c.ErrOrStderr(), args)
			if err != nil {
				return err
			}
			out := c.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetEscapeHTML(false)
				return enc.Encode(resp)
			}
			fmt.Fprintln(out, shellLine(resp))
			return nil
		},
	}
	f.add(c)
	c.Flags().BoolVar(&asJSON, "json", false, "print {id, argv, env, dir} as JSON")
	return c
}

// shellLine renders a wrapped command as one POSIX shell line:
// cd DIR && env -i K=V... ARGV...
func shellLine(w *apitype.WrapResponse) string {
	var b strings.Builder
	if w.Dir != "" {
		b.WriteString("cd " + shellQuote(w.Dir) + " && ")
	}
	b.WriteString("env -i")
	for _, e := range w.Env {
		b.WriteString(" " + shellQuote(e))
	}
	for _, a := range w.Argv {
		b.WriteString(" " + shellQuote(a))
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell: bare when it holds only safe
// characters, else in single quotes.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:,+=@%", r)) {
			safe = false
			break
		}
	}
	if safe && !strings.HasPrefix(s, "=") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
