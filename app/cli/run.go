package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/client"
)

func newRunCmd() *cobra.Command {
	var f wrapFlags
	c := &cobra.Command{
		Use:   "run [--spec FILE] [--folder DIR] [--name N] -- CMD [ARG...]",
		Short: "Run CMD in a sandbox and exit with its exit code",
		Long: `Run CMD in a sandbox: wrap, then run the confining command with this
terminal's stdin, stdout and stderr. Ctrl-C and other signals are passed to
the command. lnk exits with the command's exit code (128+N when signal N
ended it); lnk's own failures exit 125 (see 'lnk sandbox --help').`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			resp, err := f.wrap(c.Context(), c.ErrOrStderr(), args)
			if err != nil {
				return err
			}
			// Before the run: the in-process guard takes the wrapped
			// command's environment.
			sock, _ := (&client.Client{}).SocketPath()
			err = runWrapped(c, resp)
			var ee *exitError
			if errors.As(err, &ee) && ee.code >= ExitFailure && ee.code <= 127 {
				abandon(sock, resp.ID)
			}
			return err
		},
	}
	f.add(c)
	return c
}

// runWrapped runs the confining command, passing signals on, and mirrors
// its exit code.
func runWrapped(c *cobra.Command, w *apitype.WrapResponse) error {
	if onTerminal(c) {
		if ok, err := runOnTerminal(w); ok {
			return err
		}
	}
	if inProcessGuard(w) && c.InOrStdin() == os.Stdin && c.OutOrStdout() == os.Stdout {
		return runGuard(w)
	}
	cmd := exec.Command(w.Argv[0], w.Argv[1:]...)
	cmd.Env, cmd.Dir = w.Env, w.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr()
	cmd.SysProcAttr = ownGroup()
	return startWall(cmd, forwarded)
}

// startWall starts the confining command, passes the signals pass on to
// it, waits, and mirrors its exit code.
func startWall(cmd *exec.Cmd, pass []os.Signal) error {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, pass...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return failf(ExitFailure, "cannot start the sandbox (%s): %v: see 'lnk sandbox doctor'", cmd.Path, err)
	}
	done := make(chan struct{})
	go forwardSignals(sigs, done, cmd.Process)
	err := cmd.Wait()
	close(done)
	return wallResult(err)
}

// wallResult turns the wall's end into lnk's exit: the command's code
// (128+N for signal N), or lnk's own failure.
func wallResult(err error) error {
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return failf(ExitFailure, "the sandbox failed: %v", err)
	}
	return &exitError{code: exitCode(ee)}
}

// abandon stops a sandbox whose command ended before its init opened the
// session (the wall failed to start), so that it does not wait in the list
// as "starting" until it expires.
func abandon(socket, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c := &client.Client{Socket: socket}
	list, err := c.List(ctx)
	if err != nil {
		return
	}
	for _, s := range list {
		if s.ID == id && s.State == apitype.StateStarting {
			c.Stop(ctx, id, false)
		}
	}
}

// forwardSignals passes each signal lnk receives to the wall's process
// (on Linux lnk's guard, which passes it to init, which passes it to the
// command).
func forwardSignals(sigs <-chan os.Signal, done <-chan struct{}, wall *os.Process) {
	for {
		select {
		case <-done:
			return
		case s := <-sigs:
			wall.Signal(s)
		}
	}
}
