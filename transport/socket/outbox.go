package socket

import "sync"

// outbox is a socket's bounded queue of outbound websocket frames. Any goroutine
// pushes (the hub's publishers, the socket's reader); only the socket's writer takes.
// Frames are complete websocket frames, often shared by many sockets: never modified.
//
// It holds no memory while idle beyond its struct: the pending slice grows with use,
// and the writer lets a large one go once drained.
type outbox struct {
	// static after construction
	limit int           // most frames pending before a push fails
	wake  chan struct{} // capacity 1: "there is something to take, or the socket is closing"

	mu      sync.Mutex // guards the fields below
	pending [][]byte   // frames not yet taken by the writer, oldest first
	closed  bool       // no more pushes are accepted
}

// pushResult says what became of a pushed frame.
type pushResult uint8

const (
	pushed   pushResult = iota // queued
	pushFull                   // refused: limit frames already pending (a slow consumer)
	pushShut                   // refused: the socket is closing; drop silently
)

func newOutbox(limit int) outbox {
	return outbox{limit: limit, wake: make(chan struct{}, 1)}
}

// push queues frames, all or none, without blocking.
func (o *outbox) push(frames ...[]byte) pushResult {
	o.mu.Lock()
	switch {
	case o.closed:
		o.mu.Unlock()
		return pushShut
	case len(o.pending)+len(frames) > o.limit:
		o.mu.Unlock()
		return pushFull
	}
	first := len(o.pending) == 0
	o.pending = append(o.pending, frames...)
	o.mu.Unlock()
	if first {
		o.signal()
	}
	return pushed
}

// take swaps the pending frames for spare (emptied) and returns them.
func (o *outbox) take(spare [][]byte) [][]byte {
	o.mu.Lock()
	out := o.pending
	o.pending = spare[:0]
	o.mu.Unlock()
	return out
}

// close refuses further pushes and wakes the writer so that it notices.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.signal()
}

// signal wakes the writer, if it is not already due to wake.
func (o *outbox) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}
