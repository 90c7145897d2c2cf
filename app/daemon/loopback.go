package daemon

import (
	"fmt"
	"net"
	"runtime"
)

// sharedLoopback: the sandbox shares this machine's loopback (macOS,
// Windows). A variable so the Linux tests can take that path too.
var sharedLoopback = runtime.GOOS != "linux"

// wallPort is the proxy port the wall points the sandbox at. On Linux the
// sandbox has a loopback of its own, where init relays a random port to
// the proxy's socket. On macOS and Windows the sandbox shares this
// machine's loopback, so the proxy itself listens on 127.0.0.1 (a port
// the system picks), behind the sandbox's secret as on the socket, and
// closes it with the proxy.
func (d *Daemon) wallPort(sb *sandbox) (int, error) {
	if !sharedLoopback {
		return proxyPort(), nil
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("the proxy's loopback port: %w", err)
	}
	go func() {
		sb.proxy.Serve(ln) // returns when the proxy closes (or was closed first)
		ln.Close()
	}()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
