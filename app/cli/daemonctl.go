package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"lnk.dev/sandbox/app/apitype"
	"lnk.dev/sandbox/app/client"
)

// Version is lnk's version, reported by `status`; release builds set it
// with -ldflags "-X lnk.dev/sandbox/app/cli.Version=…".
var Version = "dev"

// daemonClient returns a client of a daemon that answers, starting one if
// none does. If a dead daemon's socket was found it says so on stderr: its
// sandboxes lost their network.
func daemonClient(ctx context.Context, stderr io.Writer) (*client.Client, error) {
	if id := os.Getenv("LNK_SANDBOX"); id != "" {
		// Inside, the daemon is out of reach by design; starting one
		// there would only fail later and less clearly.
		return nil, failf(ExitFailure, "this is sandbox %s, and the lnk daemon cannot be reached from inside a sandbox: run this outside it", id)
	}
	c := &client.Client{}
	st, err := c.EnsureDaemon(ctx, "")
	if st.Died {
		fmt.Fprintf(stderr, "lnk: the daemon had stopped unexpectedly, and every sandbox it ran lost its network: started a new one\n")
	}
	if err != nil {
		var ae *apitype.Error
		if errors.As(err, &ae) {
			return nil, daemonErr(err)
		}
		return nil, failf(ExitFailure, "cannot reach or start the daemon: %v: fix that, then see 'lnk sandbox doctor'", err)
	}
	return c, nil
}

// daemonErr turns a client error into the CLI's one-line failure.
func daemonErr(err error) error {
	var ae *apitype.Error
	switch {
	case errors.As(err, &ae) && ae.Code == apitype.CodeNotFound:
		return failf(ExitInvalid, "%s", ae.Message)
	case errors.As(err, &ae) && (ae.Code == apitype.CodeBadRequest || ae.Code == apitype.CodeConflict):
		return failf(ExitInvalid, "%s", ae.Message)
	case errors.As(err, &ae) && ae.Code == apitype.CodeUnavailable:
		return failf(ExitFailure, "%s", ae.Message)
	case errors.Is(err, client.ErrNoDaemon):
		return failf(ExitFailure, "%v: start it with 'lnk sandbox daemon', or see 'lnk sandbox doctor'", err)
	}
	return failf(ExitFailure, "daemon: %v: see 'lnk sandbox status' and the daemon's log", err)
}
