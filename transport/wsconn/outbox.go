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
// use, and the writer lets a large one go once drained. It starts no writer
// itself: its callers kick the connection's writer when it says so.
type outbox struct {
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

// push queues frames, all or none, without blocking; wake says the writer has
// work it may not know of (the outbox was empty and not held).
func (o *outbox) push(limit int, frames [][]byte) (r Result, wake bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.closed:
		return Shut, false
	case len(o.pending)+len(frames) > limit:
		return Full, false
	}
	first := len(o.pending) == 0
	o.pending = append(o.pending, frames...)
	return Sent, first && !o.held
}

// open puts first in front of what is pending and lets the writer take.
func (o *outbox) open(first []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pending = append(o.pending, nil)
	copy(o.pending[1:], o.pending)
	o.pending[0] = first
	o.held = false
}

// due reports whether the writer has something to do: frames to take, or the
// close.
func (o *outbox) due() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.closed || (len(o.pending) > 0 && !o.held)
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
	if len(out) == 0 {
		// The writer stops: an idle connection keeps no array.
		o.pending = nil
		return nil
	}
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

// close refuses further pushes and records how the connection ends (the caller
// then kicks the writer); it reports false when the outbox was already closed.
func (o *outbox) close(code ws.StatusCode, reason string, drain bool) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false
	}
	o.closed = true
	o.code, o.reason, o.drain = code, reason, drain
	o.closing.Store(true)
	return true
}
