package projection

import "sync"

// routines starts the goroutines a Runner owns, so Close can wait for them; it refuses
// to start one once closing began.
type routines struct {
	mu      sync.Mutex // guards closing and wg.Add
	closing bool
	wg      sync.WaitGroup
}

// Go runs f in a tracked goroutine and reports whether it started.
func (g *routines) Go(f func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing {
		return false
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		f()
	}()
	return true
}

// Close refuses new goroutines and waits for the running ones to return.
func (g *routines) Close() {
	g.mu.Lock()
	g.closing = true
	g.mu.Unlock()
	g.wg.Wait()
}
