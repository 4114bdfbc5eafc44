package wsconn

import (
	"errors"
	"net"
	"os"
	"time"
)

// writeRun is the connection's writer, started by kick when frames wait: the only
// code that writes to nc, one run at a time. It sends every queued frame in one
// writev, until the outbox is empty; then it stops, and the next frame starts a
// new run. Once the connection is closing it writes the close frame and ends the
// writer's work.
func (c *Conn) writeRun() {
	bufs := new(net.Buffers) // one per run: a local one would escape to the heap on every write
	var spare [][]byte
	for {
		if c.Closing() {
			c.goodbye(bufs)
			c.writerExit()
			return
		}
		batch := c.out.take(spare)
		if len(batch) == 0 {
			// No deadline left on an idle socket: the runtime holds no timer for it.
			_ = c.nc.SetWriteDeadline(time.Time{})
			c.writer.Store(writerIdle)
			// A frame queued between take and the store found the writer busy and
			// did not kick: look again, and go on unless a new run took over.
			if !c.out.due() || !c.writer.CompareAndSwap(writerIdle, writerBusy) {
				return
			}
			continue
		}
		if err := c.write(bufs, batch, c.opts.WriteTimeout); err != nil {
			c.writeFailed(err)
			c.writerExit()
			return
		}
		spare = recycle(batch)
	}
}

// writerExit ends the writer's work for good.
func (c *Conn) writerExit() {
	c.writer.Store(writerDone)
	c.exit()
}

// write sends frames in one writev.
func (c *Conn) write(bufs *net.Buffers, frames [][]byte, timeout time.Duration) error {
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
	if w := c.opts.Written; w != nil {
		w.Add(int64(len(frames)))
	}
	return nil
}

// recycle keeps a drained batch's backing array for the next take, unless a burst
// made it large: an idle connection should not hold a big array.
func recycle(batch [][]byte) [][]byte {
	clear(batch)
	if cap(batch) > 64 {
		return nil
	}
	return batch[:0]
}

// writeFailed ends the connection after a failed write: the stream may hold half
// a frame, so no close frame follows.
func (c *Conn) writeFailed(err error) {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.CloseWith(c.opts.Overflow.Code, "write timeout", false)
	default:
		c.CloseWith(CloseNormal, "write failed: "+err.Error(), false)
	}
	c.finalRead(0)
}

// goodbye runs once the connection is closing: flush what is pending if asked,
// send the close frame, half-close, and give the reader CloseGrace to see the
// peer's end.
func (c *Conn) goodbye(bufs *net.Buffers) {
	code, reason := c.out.code, c.out.reason // written before closing was set
	drain := c.out.drain
	timeout := c.opts.WriteTimeout
	if !drain {
		timeout = CloseGrace
	}
	var err error
	if drain {
		err = c.write(bufs, c.out.takeAll(), timeout)
	}
	if err == nil {
		err = c.write(bufs, [][]byte{CloseFrame(code, reason)}, timeout)
	}
	if err != nil {
		c.finalRead(0) // the stream is broken: let the reader go now
		return
	}
	if hc, ok := c.nc.(interface{ CloseWrite() error }); ok {
		_ = hc.CloseWrite()
	}
	c.finalRead(CloseGrace)
}
