package wsconn

import (
	"io"
	"sync/atomic"
	"time"

	"atende/goroutine"
)

// parking is what lets an idle connection hold no goroutine and no timer
// (Options.ParkIdle). Between two messages, when its socket holds nothing to read,
// the reader goroutine arms the poller and ends; the poller, its sweep of the read
// deadlines or the close wakes the connection, and whoever wakes it first starts a
// new reader. The writer likewise runs only while there are frames to write
// (Conn.kick).
type parking struct {
	fd         int32         // the socket's descriptor, when pollable
	pollable   bool          // a plain socket on Linux with ParkIdle: the connection may park
	registered bool          // in the poller's epoll set; guarded by the poller's mu
	gen        atomic.Uint32 // the arming whose report may wake the connection

	parked   atomic.Bool  // no reader goroutine: the first wake starts one
	deadline atomic.Int64 // the read deadline, unix nanoseconds; 0: none
}

// tryPark is called by the reader between two messages. It parks the connection
// and answers true, after which the calling goroutine must end without touching
// the reader's state (another reader may already run); false: read on.
func (c *Conn) tryPark() bool {
	if !c.park.pollable || c.final.Load() || c.Closing() || !c.srcDrained() {
		return false
	}
	if dl := c.park.deadline.Load(); dl != 0 && time.Now().UnixNano() >= dl {
		return false // the read reports the timeout at once
	}
	if readable(c.park.fd) {
		return false
	}
	p, err := thePoller()
	if err != nil {
		return false
	}
	c.dlMu.Lock()
	c.park.parked.Store(true)
	// No deadline on the socket while parked: the poller's sweep watches it, and
	// the runtime holds no timer for the connection.
	_ = c.nc.SetReadDeadline(time.Time{})
	c.dlMu.Unlock()
	if err := p.arm(c); err != nil {
		// Not armed: read on unless a wake (the close) already took the reader over.
		return !c.unpark()
	}
	// A close that came between the checks above and parked being set saw no
	// parked reader to wake: look again now that it is set.
	if c.final.Load() || c.Closing() {
		return !c.unpark()
	}
	return true
}

// unpark takes a parked connection's reader over, for the calling goroutine: it
// reports false when another wake took it first. The socket's read deadline is
// set again from the connection's.
func (c *Conn) unpark() bool {
	if !c.park.parked.CompareAndSwap(true, false) {
		return false
	}
	c.dlMu.Lock()
	defer c.dlMu.Unlock()
	if dl := c.park.deadline.Load(); dl != 0 {
		_ = c.nc.SetReadDeadline(time.Unix(0, dl))
	}
	return true
}

// wake starts a reader for a parked connection; a connection not parked is left
// as it is (its reader runs, or it has ended).
func (c *Conn) wake() {
	if c.unpark() {
		goroutine.Go(c.read) // inside the hold Start took on the group
	}
}

// overdue reports whether c is parked past its read deadline (the poller's sweep).
func (c *Conn) overdue(now int64) bool {
	dl := c.park.deadline.Load()
	return dl != 0 && now >= dl && c.park.parked.Load()
}

// srcDrained reports whether nothing is left to read ahead of the socket itself:
// the bytes the HTTP server had buffered were consumed.
func (c *Conn) srcDrained() bool {
	if p, ok := c.src.(*prefixed); ok {
		return len(p.b) == 0
	}
	return c.src == io.Reader(c.nc)
}
