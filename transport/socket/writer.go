package socket

import (
	"errors"
	"net"
	"os"
	"strings"
	"time"

	"github.com/gobwas/ws"
)

// writeLoop is the socket's writer goroutine: the only code that writes to nc. It
// sleeps on the outbox's wake channel alone (pings come through the outbox too, from
// the server's pinger), sends every queued frame in one writev, and at the end the
// close frame.
func (c *conn) writeLoop() {
	defer c.exit()
	bufs := new(net.Buffers) // reused: a local one would escape to the heap on every write
	var spare [][]byte
	for range c.out.wake {
		if c.closing() {
			c.goodbye(bufs)
			return
		}
		batch := c.out.take(spare)
		if err := c.write(bufs, batch, c.srv.cfg.WriteTimeout); err != nil {
			c.writeFailed(err)
			return
		}
		spare = recycle(batch)
	}
}

// write sends frames in one writev.
func (c *conn) write(bufs *net.Buffers, frames [][]byte, timeout time.Duration) error {
	if len(frames) == 0 {
		return nil
	}
	if err := c.nc.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	*bufs = frames
	_, err := bufs.WriteTo(c.nc)
	*bufs = nil
	if err != nil {
		return err
	}
	c.srv.framesWritten.Add(int64(len(frames)))
	return nil
}

// recycle keeps a drained batch's backing array for the next take, unless a burst
// made it large: an idle socket should not hold a big array.
func recycle(batch [][]byte) [][]byte {
	clear(batch)
	if cap(batch) > 64 {
		return nil
	}
	return batch[:0]
}

// writeFailed ends the socket after a failed write: the stream may hold half a
// frame, so no close frame follows.
func (c *conn) writeFailed(err error) {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.closeWith(CloseSlowConsumer, "write timeout", false)
	default:
		c.closeWith(CloseNormal, "write failed: "+err.Error(), false)
	}
	c.finalRead(0)
}

// goodbye runs when closeWith was called: flush what is pending if asked, send the
// close frame, half-close, and give the reader closeGrace to see the client's end.
func (c *conn) goodbye(bufs *net.Buffers) {
	timeout := c.srv.cfg.WriteTimeout
	if !c.drain {
		timeout = closeGrace
	}
	var err error
	if c.drain {
		err = c.write(bufs, c.out.take(nil), timeout)
	}
	if err == nil {
		err = c.write(bufs, [][]byte{closeFrame(c.closeCode, c.closeReason)}, timeout)
	}
	if err != nil {
		c.finalRead(0) // the stream is broken: let the reader go now
		return
	}
	if hc, ok := c.nc.(interface{ CloseWrite() error }); ok {
		_ = hc.CloseWrite()
	}
	c.finalRead(closeGrace)
}

// closeFrame compiles a close frame; the reason is cut to fit a control frame.
func closeFrame(code ws.StatusCode, reason string) []byte {
	if len(reason) > 123 {
		reason = strings.ToValidUTF8(reason[:123], "")
	}
	return ws.MustCompileFrame(ws.NewCloseFrame(ws.NewCloseFrameBody(code, reason)))
}
