package wsconn

import (
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"atende/goroutine"
)

// parking is what lets an idle connection hold no goroutine (Options.ParkIdle).
// Between two messages, when its socket holds nothing to read, the reader
// goroutine arms the poller and ends; the poller, the read deadline's timer or
// the close wakes the connection, and whoever wakes it first starts a new reader.
// The writer likewise runs only while there are frames to write (Conn.kick).
type parking struct {
	rc         syscall.RawConn // nil: this connection never parks
	fd         int32           // rc's descriptor
	registered bool            // in the poller's epoll set; guarded by the poller's mu
	gen        atomic.Uint32   // the arming whose report may wake the connection

	parked   atomic.Bool  // no reader goroutine: the first wake starts one
	deadline atomic.Int64 // the read deadline, unix nanoseconds; 0: none

	timerMu sync.Mutex  // guards timer and tick
	timer   *time.Timer // wakes a parked reader at its read deadline
	tick    *time.Timer // a Ticker handler's next tick
}

// tryPark is called by the reader between two messages. It parks the connection
// and answers true, after which the calling goroutine must end without touching
// the reader's state (another reader may already run); false: read on.
func (c *Conn) tryPark() bool {
	if c.park.rc == nil || c.final.Load() || c.Closing() || !c.srcDrained() {
		return false
	}
	dl := c.park.deadline.Load()
	if dl != 0 && time.Now().UnixNano() >= dl {
		return false // the read reports the timeout at once
	}
	if readable(c.park.rc) {
		return false
	}
	p, err := thePoller()
	if err != nil {
		return false
	}
	c.park.parked.Store(true)
	if err := p.arm(c); err != nil {
		// Not armed: read on unless a wake (the close) already took the reader over.
		return !c.park.parked.CompareAndSwap(true, false)
	}
	// A close that came between the checks above and parked being set saw no
	// parked reader to wake: look again now that it is set.
	if c.final.Load() || c.Closing() {
		return !c.park.parked.CompareAndSwap(true, false)
	}
	c.armDeadline()
	return true
}

// wake starts a reader for a parked connection; a connection not parked is left
// as it is (its reader runs, or it has ended).
func (c *Conn) wake() {
	if c.park.parked.CompareAndSwap(true, false) {
		goroutine.Go(c.read) // inside the hold Start took on the group
	}
}

// armDeadline makes the read deadline, as it is now, wake the parked reader. It is
// called when the reader parks and when a parked reader's deadline moves; it
// reads the deadline under the timer's lock, so the last call sets the timer to
// the latest deadline whatever the order of the calls.
func (c *Conn) armDeadline() {
	c.park.timerMu.Lock()
	defer c.park.timerMu.Unlock()
	dl := c.park.deadline.Load()
	if dl == 0 {
		return
	}
	d := time.Until(time.Unix(0, dl))
	if c.park.timer == nil {
		c.park.timer = time.AfterFunc(d, c.deadlineDue)
		return
	}
	c.park.timer.Reset(d)
}

// deadlineDue runs on the read deadline's timer: a deadline moved later while
// parked (ExtendRead) only moves the timer; a passed one wakes the reader, which
// reports the timeout.
func (c *Conn) deadlineDue() {
	if !c.park.parked.Load() {
		return
	}
	if time.Now().UnixNano() < c.park.deadline.Load() {
		c.armDeadline()
		return
	}
	c.wake()
}

// startTicks ticks a Ticker handler every Options.TickEvery, on a timer: no
// goroutine waits for it between ticks.
func (c *Conn) startTicks(t Ticker) {
	every := c.opts.TickEvery
	var due func()
	due = func() {
		if c.Closing() {
			return
		}
		if frame := t.Tick(); frame != nil && c.out.urgent(frame) {
			c.kick()
		}
		c.park.timerMu.Lock()
		defer c.park.timerMu.Unlock()
		if c.park.tick != nil {
			c.park.tick.Reset(every)
		}
	}
	c.park.timerMu.Lock()
	defer c.park.timerMu.Unlock()
	c.park.tick = time.AfterFunc(every, due)
}

// stopTimers stops the deadline's and the ticks' timers of an ended connection.
func (c *Conn) stopTimers() {
	c.park.timerMu.Lock()
	defer c.park.timerMu.Unlock()
	if c.park.timer != nil {
		c.park.timer.Stop()
	}
	if c.park.tick != nil {
		c.park.tick.Stop()
		c.park.tick = nil
	}
}

// srcDrained reports whether nothing is left to read ahead of the socket itself:
// the bytes the HTTP server had buffered were consumed.
func (c *Conn) srcDrained() bool {
	if p, ok := c.src.(*prefixed); ok {
		return len(p.b) == 0
	}
	return c.src == io.Reader(c.nc)
}
