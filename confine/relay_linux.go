package confine

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// relay accepts on the sandbox's loopback proxy port and passes each
// connection to the proxy's unix socket. It is ours: no socat.
type relay struct {
	socket string
	ls     []net.Listener
	wg     sync.WaitGroup
}

// startRelay listens on 127.0.0.1:port and [::1]:port. IPv6 is skipped
// only where the namespace has no ::1.
func startRelay(port int, socket string) (*relay, error) {
	r := &relay{socket: socket}
	l4, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return nil, fmt.Errorf("relay: cannot listen on 127.0.0.1:%d inside the sandbox: %v", port, err)
	}
	r.ls = append(r.ls, l4)
	if l6, err := net.Listen("tcp6", "[::1]:"+strconv.Itoa(port)); err == nil {
		r.ls = append(r.ls, l6)
	}
	for _, l := range r.ls {
		r.wg.Add(1)
		go r.serve(l)
	}
	return r, nil
}

func (r *relay) serve(l net.Listener) {
	defer r.wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go r.pass(c)
	}
}

// handOffByte is the proxy's HandOffByte: sent with the client's socket
// attached, and answered by the proxy once it has taken the socket.
const handOffByte = 0x00

// pass hands the connection c to the proxy: its socket itself when the
// proxy takes it (so the data crosses the proxy alone, not the relay
// too), else by copying both ways.
func (r *relay) pass(c net.Conn) {
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok && r.handOff(tc) {
		return // the proxy holds the socket now; closing ours ends nothing
	}
	up, err := net.Dial("unix", r.socket)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
	<-done
	<-done
}

// handOff sends c's socket to the proxy (SCM_RIGHTS) on a new connection
// and reports whether the proxy took it. A proxy that does not know the
// hand-off sees one byte and the end of the stream, and answers otherwise.
func (r *relay) handOff(c *net.TCPConn) bool {
	up, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: r.socket, Net: "unix"})
	if err != nil {
		return false
	}
	defer up.Close()
	rc, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var werr error
	if err := rc.Control(func(fd uintptr) {
		_, _, werr = up.WriteMsgUnix([]byte{handOffByte}, unix.UnixRights(int(fd)), nil)
	}); err != nil || werr != nil {
		return false
	}
	_ = up.CloseWrite()
	_ = up.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [1]byte
	n, err := up.Read(b[:])
	return err == nil && n == 1 && b[0] == handOffByte
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

func (r *relay) close() {
	for _, l := range r.ls {
		l.Close()
	}
}
