package open

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// openWait is how long the system's opener may take before the page is
// taken as opened: xdg-open, open and the URL handler return at once
// when they hand the page to a browser that runs, but start the browser
// itself (and wait for it) when none does.
const openWait = 15 * time.Second

// System opens url in the person's default browser with the daemon's
// own environment (never a sandbox's): xdg-open on Linux and the BSDs,
// open on macOS, the URL handler on Windows. The URL is one argument,
// never read by a shell.
func System(ctx context.Context, url string) error {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name, args = "open", []string{url}
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", url}
	default:
		name, args = "xdg-open", []string{url}
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("%s is not installed: install it (xdg-utils on Linux) or open the page yourself", name)
	}
	return Run(ctx, append([]string{path}, args...), nil)
}

// Run runs an opener command (argv, env; nil env is the daemon's own) and
// waits for it up to openWait: a non-zero exit is an error that quotes
// its first line of output; a command still running then (a browser
// started in the foreground) is taken as having opened the page, and is
// left to run.
func Run(ctx context.Context, argv, env []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	if env == nil {
		cmd.Env = os.Environ()
	}
	var out bytes.Buffer
	lw := &limited{b: &out} // one writer: exec shares one pipe, one copier
	cmd.Stdout, cmd.Stderr = lw, lw
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %v", argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTimer(openWait)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			line, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
			if line != "" {
				return fmt.Errorf("%s: %v: %s", argv[0], err, line)
			}
			return fmt.Errorf("%s: %v", argv[0], err)
		}
		return nil
	case <-t.C:
		return nil
	case <-ctx.Done():
		return nil // the request went away; the opener goes on
	}
}

// limited keeps the first 4 KiB written to it.
type limited struct{ b *bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := 4096 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
