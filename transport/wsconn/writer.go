package wsconn

import (
	"errors"
	"net"
	"os"
	"time"
)

// writeLoop is the connection's writer goroutine: the only code that writes to nc.
// It sleeps on the outbox's wake channel (and on the tick, for a Ticker handler),
// sends every queued frame in one writev, and at the end the close frame.
func (c *Conn) writeLoop() {
	defer c.exit()
	var tick <-chan time.Time
	var ticker Ticker
	if t, ok := c.h.(Ticker); ok && c.opts.TickEvery > 0 {
		tk := time.NewTicker(c.opts.TickEvery)
		defer tk.Stop()
		tick, ticker = tk.C, t
	}
	bufs := new(net.Buffers) // reused: a local one would escape to the heap on every write
	var spare [][]byte
	var err error
	for {
		if tick == nil {
			<-c.out.wake // a plain receive parks on a smaller stack than a select
		} else {
			select {
			case <-c.out.wake:
			case <-tick:
				if err = c.tick(bufs, ticker); err != nil {
					c.writeFailed(err)
					return
				}
				continue
			}
		}
		if c.Closing() {
			c.goodbye(bufs)
			return
		}
		batch := c.out.take(spare)
		if err = c.write(bufs, batch, c.opts.WriteTimeout); err != nil {
			c.writeFailed(err)
			return
		}
		spare = recycle(batch)
	}
}

// tick writes what the Ticker answers, unless the connection is closing (the
// writer's wake is then due).
func (c *Conn) tick(bufs *net.Buffers, t Ticker) error {
	if c.Closing() {
		return nil
	}
	frame := t.Tick()
	if frame == nil {
		return nil
	}
	return c.write(bufs, [][]byte{frame}, c.opts.WriteTimeout)
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
