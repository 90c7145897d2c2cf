//go:build !windows

package safesocket

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

func listen(path string) (net.Listener, func(net.Conn) (Peer, error), error) {
	if len(path) > MaxPathLen {
		return nil, nil, fmt.Errorf("safesocket: socket path %s is longer than %d bytes: set XDG_RUNTIME_DIR to a short folder", path, MaxPathLen)
	}
	if err := PrivateDir(filepath.Dir(path)); err != nil {
		return nil, nil, err
	}
	if err := removeStale(path); err != nil {
		return nil, nil, err
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, nil, fmt.Errorf("safesocket: listen on %s: %w", path, err)
	}
	// Deleting the socket on Close would remove a successor's socket if a
	// second server replaced it; the daemon removes it itself.
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, nil, fmt.Errorf("safesocket: chmod %s: %w", path, err)
	}
	self, err := selfIdentity()
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return l, func(c net.Conn) (Peer, error) { return checkPeer(c, self) }, nil
}

// PrivateDir makes dir (and missing parents, 0700) and checks that it is
// a real folder owned by this user that no one else may enter. A folder
// open to others is refused, not fixed: someone may already be inside.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("safesocket: create %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("safesocket: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("safesocket: %s is not a folder (a symlink?): remove it", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("safesocket: cannot read the owner of %s", dir)
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("safesocket: %s belongs to uid %d, not you (uid %d): remove it", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("safesocket: %s is open to other users (mode %v): remove it, lnk makes it again 0700", dir, fi.Mode().Perm())
	}
	return nil
}

// removeStale removes a socket file no server answers on. A live server
// gives ErrInUse; a path that is not a socket is left alone and refused.
func removeStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("safesocket: %w", err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("safesocket: %s exists and is not a socket: remove it", path)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return ErrInUse
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("safesocket: remove stale socket %s: %w", path, err)
	}
	return nil
}

func dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}
