package actors

import "sync"

// Routines starts goroutines that are tracked: Wait returns once all have ended, and
// Go refuses to start any after Close. No bare `go` in this package.
type Routines struct {
	mu     sync.Mutex // guards closed
	closed bool
	wg     sync.WaitGroup
}

// Go runs fn in a new goroutine unless Close was called; it reports whether it did.
func (r *Routines) Go(fn func()) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		fn()
	}()
	return true
}

// Close refuses new goroutines and waits for the running ones.
func (r *Routines) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.wg.Wait()
}
