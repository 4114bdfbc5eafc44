package wsconn

import (
	"sync"
	"sync/atomic"

	"github.com/gobwas/ws"
)

// outbox is a connection's bounded queue of outbound websocket frames, and the
// connection's closing state (one lock for both: a frame is either queued before
// the close or refused). Any goroutine pushes; only the writer takes. Frames are
// complete websocket frames, often shared by many connections: never modified.
//
// It holds no memory while idle beyond its struct: the pending slice grows with
// use, and the writer lets a large one go once drained.
type outbox struct {
	// static after construction
	wake chan struct{} // capacity 1: "there is something to take, or the connection is closing"

	closing atomic.Bool // set under mu once the close fields below are written

	mu      sync.Mutex // guards the fields below
	pending [][]byte   // frames not yet taken by the writer, oldest first
	held    bool       // Options.HoldUntilOpen and Open not called yet: take returns nothing
	closed  bool       // no more pushes are accepted
	// written once, with closed, under mu; read by whoever saw closing
	code   ws.StatusCode
	reason string
	drain  bool
}

// Result says what became of frames given to Send.
type Result uint8

// Results of Send.
const (
	Sent Result = iota // queued
	Full               // refused: the queue is full; the connection is closing with Options.Overflow
	Shut               // refused: the connection is closing; dropped silently
)

// push queues frames, all or none, without blocking.
func (o *outbox) push(limit int, frames [][]byte) Result {
	o.mu.Lock()
	switch {
	case o.closed:
		o.mu.Unlock()
		return Shut
	case len(o.pending)+len(frames) > limit:
		o.mu.Unlock()
		return Full
	}
	first := len(o.pending) == 0
	o.pending = append(o.pending, frames...)
	held := o.held
	o.mu.Unlock()
	if first && !held {
		o.signal()
	}
	return Sent
}

// open puts first in front of what is pending and lets the writer take.
func (o *outbox) open(first []byte) {
	o.mu.Lock()
	o.pending = append(o.pending, nil)
	copy(o.pending[1:], o.pending)
	o.pending[0] = first
	o.held = false
	o.mu.Unlock()
	o.signal()
}

// take swaps the pending frames for spare (emptied) and returns them; nothing
// while held.
func (o *outbox) take(spare [][]byte) [][]byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.held {
		return nil
	}
	out := o.pending
	o.pending = spare[:0]
	return out
}

// takeAll returns the pending frames, held or not: a drained close writes what is
// pending even when the greeting never went out.
func (o *outbox) takeAll() [][]byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.pending
	o.pending = nil
	return out
}

// close refuses further pushes, records how the connection ends and wakes the
// writer; it reports false when the outbox was already closed.
func (o *outbox) close(code ws.StatusCode, reason string, drain bool) bool {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return false
	}
	o.closed = true
	o.code, o.reason, o.drain = code, reason, drain
	o.closing.Store(true)
	o.mu.Unlock()
	o.signal()
	return true
}

// signal wakes the writer, if it is not already due to wake.
func (o *outbox) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}
