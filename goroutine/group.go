// Package goroutine tracks the goroutines a component starts, so that its shutdown
// can refuse new ones and wait for the running ones. Packages of this project start
// goroutines only through this package (a Group, or Go): no bare `go` statement
// outside it, which TestOnlyTheGoroutinePackageStartsGoroutines (cmd/atende) checks.
package goroutine

import (
	"context"
	"sync"
)

// Group starts goroutines and waits for them; once stopped it refuses to start more.
// The zero value is ready to use. A Group must not be copied after first use.
type Group struct {
	mu      sync.Mutex    // guards the fields below
	stopped bool          // Go refuses
	running int           // goroutines started and not yet returned
	idle    chan struct{} // closed when stopped && running == 0 (made by Stop)
}

// Go runs fn in a new goroutine unless the group is stopped; it reports whether it did.
func (g *Group) Go(fn func()) bool {
	g.mu.Lock()
	if g.stopped {
		g.mu.Unlock()
		return false
	}
	g.running++
	g.mu.Unlock()
	go func() {
		defer g.done()
		fn()
	}()
	return true
}

// Hold counts one unit of work that is not a goroutine of its own, as Go counts a
// goroutine: Wait waits for its Release. A connection that parks while idle holds
// the group for its whole life and runs its reader and writer, when it has work,
// on goroutines started with Go (the package function) inside that hold. Hold
// reports false, and counts nothing, once the group is stopped.
func (g *Group) Hold() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return false
	}
	g.running++
	return true
}

// Release ends a unit of work Hold counted; call it once per successful Hold.
func (g *Group) Release() { g.done() }

func (g *Group) done() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	if g.stopped && g.running == 0 {
		close(g.idle)
	}
}

// Stop refuses further Go calls without waiting. It may be called more than once.
func (g *Group) Stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return
	}
	g.stopped = true
	g.idle = make(chan struct{})
	if g.running == 0 {
		close(g.idle)
	}
}

// Wait stops the group and waits for every started goroutine to return, or for ctx.
func (g *Group) Wait(ctx context.Context) error {
	g.Stop()
	g.mu.Lock()
	idle := g.idle
	g.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the group and waits for every started goroutine, however long they
// take: the caller must first make them return (cancel their context, close their
// connections).
func (g *Group) Close() { _ = g.Wait(context.Background()) }

// Running is the number of goroutines started and not yet returned, and of holds
// not yet released.
func (g *Group) Running() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running
}

// Go runs fn in a new goroutine that no Group tracks: for a goroutine its starter
// waits for by other means (a done channel fn closes, a server's Shutdown) or that
// ends on its own (a request bounded by its timeout). Prefer a Group where the
// starter has a shutdown that must wait.
func Go(fn func()) { go fn() }
