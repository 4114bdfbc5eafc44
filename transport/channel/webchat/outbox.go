package webchat

import "sync"

// outbox is a socket's bounded queue of outbound websocket frames. Any goroutine
// pushes (Channel.Send, the socket's reader, other sockets' readers echoing); only the
// socket's writer takes. Frames are complete websocket frames, possibly shared by
// several sockets: never modified.
//
// Until open is called (with the welcome frame, which goes first) take returns
// nothing, so that no message overtakes the welcome.
type outbox struct {
	// static after construction
	limit int
	wake  chan struct{} // capacity 1: "there is something to take"

	mu      sync.Mutex // guards the fields below
	pending [][]byte
	opened  bool // the welcome is queued: the writer may take
	closed  bool // no more pushes
}

type pushResult uint8

const (
	pushed   pushResult = iota
	pushFull            // limit frames pending: a slow consumer
	pushShut            // the socket is closing: dropped
)

func newOutbox(limit int) outbox {
	return outbox{limit: limit, wake: make(chan struct{}, 1)}
}

// push queues frame without blocking.
func (o *outbox) push(frame []byte) pushResult {
	o.mu.Lock()
	switch {
	case o.closed:
		o.mu.Unlock()
		return pushShut
	case len(o.pending) >= o.limit:
		o.mu.Unlock()
		return pushFull
	}
	o.pending = append(o.pending, frame)
	opened := o.opened
	o.mu.Unlock()
	if opened {
		o.signal()
	}
	return pushed
}

// open puts first in front of what is pending and lets the writer take.
func (o *outbox) open(first []byte) {
	o.mu.Lock()
	o.pending = append([][]byte{first}, o.pending...)
	o.opened = true
	o.mu.Unlock()
	o.signal()
}

func (o *outbox) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// take returns the pending frames (none before open).
func (o *outbox) take() [][]byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.opened {
		return nil
	}
	out := o.pending
	o.pending = nil
	return out
}

// takeAll returns the pending frames, opened or not: the goodbye sends what is
// pending even when the welcome never went out (a refusal after Stop).
func (o *outbox) takeAll() [][]byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.pending
	o.pending = nil
	return out
}

// close refuses further pushes.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
}
