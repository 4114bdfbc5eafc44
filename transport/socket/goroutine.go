package socket

import (
	"context"
	"sync"
)

// tracker starts goroutines and waits for them; once closed it refuses to start
// more. It is the only place in this package that says go.
type tracker struct {
	mu      sync.Mutex    // guards the fields below
	closed  bool          // Go refuses
	running int           // goroutines started and not yet returned
	idle    chan struct{} // closed when closed && running == 0
}

// Go runs fn in a new goroutine unless the tracker is closed; it reports whether it did.
func (t *tracker) Go(fn func()) bool {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return false
	}
	t.running++
	t.mu.Unlock()
	go func() {
		defer t.done()
		fn()
	}()
	return true
}

func (t *tracker) done() {
	t.mu.Lock()
	t.running--
	if t.closed && t.running == 0 {
		close(t.idle)
	}
	t.mu.Unlock()
}

// Close refuses further Go calls. It may be called more than once.
func (t *tracker) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.closed = true
	t.idle = make(chan struct{})
	if t.running == 0 {
		close(t.idle)
	}
}

// Wait closes the tracker and waits for every started goroutine to return, or for ctx.
func (t *tracker) Wait(ctx context.Context) error {
	t.Close()
	t.mu.Lock()
	idle := t.idle
	t.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Running is the number of goroutines started and not yet returned.
func (t *tracker) Running() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running
}
