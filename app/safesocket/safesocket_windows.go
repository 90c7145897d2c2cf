package safesocket

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// SocketPath returns the control pipe of the current user; runtimeDir is
// not used on Windows.
func SocketPath(runtimeDir string) string {
	sid, err := userSID()
	if err != nil {
		return PipeName("unknown")
	}
	return PipeName(sid)
}

func userSID() (string, error) {
	tok := windows.GetCurrentProcessToken()
	u, err := tok.GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("safesocket: read this user's SID: %w", err)
	}
	return u.User.Sid.String(), nil
}

// PrivateDir makes dir; on Windows a user's profile folders are already
// private to the user, so it checks nothing more.
func PrivateDir(dir string) error {
	if strings.HasPrefix(dir, `\\.\pipe`) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("safesocket: create %s: %w", dir, err)
	}
	return nil
}

func listen(path string) (net.Listener, func(net.Conn) (Peer, error), error) {
	if !strings.HasPrefix(path, `\\.\pipe\`) {
		return nil, nil, fmt.Errorf("safesocket: %s is not a named pipe", path)
	}
	sid, err := userSID()
	if err != nil {
		return nil, nil, err
	}
	sddl, err := PipeSDDL(sid)
	if err != nil {
		return nil, nil, err
	}
	l, err := winio.ListenPipe(path, &winio.PipeConfig{SecurityDescriptor: sddl})
	if err != nil {
		if c, derr := winio.DialPipe(path, nil); derr == nil {
			c.Close()
			return nil, nil, ErrInUse
		}
		return nil, nil, fmt.Errorf("safesocket: listen on %s: %w", path, err)
	}
	// The pipe's ACL admits this user alone; there is nothing more to check.
	return l, func(net.Conn) (Peer, error) { return Peer{UID: -1}, nil }, nil
}

func dial(ctx context.Context, path string) (net.Conn, error) {
	return winio.DialPipeContext(ctx, path)
}
