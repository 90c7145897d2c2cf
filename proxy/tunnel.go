package proxy

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// errIdle ends a tunnel that moved no bytes either way for tunnelIdle.
var errIdle = errors.New("idle tunnel closed")

// tunnel copies both ways between the sandbox's connection and the
// upstream one until both ends are done, then closes both. client and
// upstream are the raw connections (so io.Copy can splice); closers are
// what to close. It returns the bytes each way and the first error.
func (p *Proxy) tunnel(client, upstream net.Conn, closers ...io.Closer) (up, down int64, err error) {
	var moved atomic.Int64
	var first error // the error that ended the tunnel, not the ones closing caused
	var once sync.Once
	fail := func(e error) {
		once.Do(func() { first = e })
		closeAll(closers)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var e error
		if down, e = p.pipe(client, upstream, &moved); e != nil {
			fail(e)
			return
		}
		closeWrite(client)
	}()
	var e error
	if up, e = p.pipe(upstream, client, &moved); e != nil {
		fail(e)
	} else {
		closeWrite(upstream)
	}
	wg.Wait()
	closeAll(closers)
	return up, down, first
}

// pipe copies src to dst until EOF. The read deadline is renewed every
// tunnelIdle; when a whole window passes with no byte moved either way
// (moved is shared by both directions), the tunnel is idle.
func (p *Proxy) pipe(dst, src net.Conn, moved *atomic.Int64) (int64, error) {
	window := p.lim.tunnelIdle
	var total int64
	seen := int64(-1)
	for {
		if window > 0 {
			src.SetReadDeadline(time.Now().Add(window))
		}
		n, err := io.Copy(dst, src)
		total += n
		if err == nil {
			return total, nil
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			if errors.Is(err, net.ErrClosed) {
				err = net.ErrClosed
			}
			return total, err
		}
		now := moved.Add(n)
		if n == 0 && now == seen {
			return total, errIdle
		}
		seen = now
	}
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}
