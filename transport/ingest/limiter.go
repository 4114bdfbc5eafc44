package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"atende/engine"
)

// Defaults of Config's zero values.
const (
	DefaultMaxInFlight      = 256
	DefaultMaxPerConnection = 64
	DefaultWait             = time.Second
	DefaultRetryAfter       = 2 * time.Second
)

// Config shapes a Limiter.
type Config struct {
	// MaxInFlight bounds the inbound calls of the whole node in flight at once.
	// Zero: DefaultMaxInFlight; negative: no node-wide bound.
	MaxInFlight int
	// MaxPerConnection bounds those of one connection. Zero:
	// DefaultMaxPerConnection (at most MaxInFlight); negative: no bound per
	// connection.
	MaxPerConnection int
	// MaxQueued bounds the calls waiting for a place; one more is refused at once.
	// Zero: as many as MaxInFlight (DefaultMaxInFlight when that is unbounded);
	// negative: none wait, a call without a place is refused at once.
	MaxQueued int
	// Wait is how long a call waits for a place before it is refused. Zero:
	// DefaultWait.
	Wait time.Duration
	// RetryAfter is what a refused sender is told to wait before trying again.
	// Zero: DefaultRetryAfter; rounded up to whole seconds on the wire.
	RetryAfter time.Duration
}

// withDefaults fills cfg's zero values and checks the others.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Wait < 0 || cfg.RetryAfter < 0 {
		return cfg, fmt.Errorf("ingest: negative duration in %+v", cfg)
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.MaxPerConnection == 0 {
		cfg.MaxPerConnection = DefaultMaxPerConnection
		if cfg.MaxInFlight > 0 {
			cfg.MaxPerConnection = min(cfg.MaxPerConnection, cfg.MaxInFlight)
		}
	}
	if cfg.MaxQueued == 0 {
		cfg.MaxQueued = cfg.MaxInFlight
		if cfg.MaxQueued < 0 {
			cfg.MaxQueued = DefaultMaxInFlight
		}
	}
	if cfg.Wait == 0 {
		cfg.Wait = DefaultWait
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = DefaultRetryAfter
	}
	return cfg, nil
}

// Overload is why an inbound call was refused: the node had no place for it
// (Reason "busy": the queue was full; "wait": no place came within Config.Wait), or
// the call went in and the connection actor did not answer in time or could not
// be reached ("stalled"). It is always the cause of an ERR_UNAVAILABLE.
type Overload struct {
	Reason     string
	RetryAfter time.Duration // at least a second
	Err        error         // what a stalled call failed with; nil otherwise
}

// Reasons of an Overload.
const (
	ReasonBusy    = "busy"
	ReasonWait    = "wait"
	ReasonStalled = "stalled"
)

func (o *Overload) Error() string {
	s := fmt.Sprintf("inbound overload (%s): retry after %s", o.Reason, o.RetryAfter)
	if o.Err != nil {
		s += ": " + o.Err.Error()
	}
	return s
}

func (o *Overload) Unwrap() error { return o.Err }

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, at least 1: the
// value of a Retry-After header and of the web chat's retryAfter.
func (o *Overload) RetryAfterSeconds() int {
	return max(1, int((o.RetryAfter+time.Second-1)/time.Second))
}

// refusal is the ERR_UNAVAILABLE of an Overload.
func refusal(reason string, retryAfter time.Duration, cause error) error {
	return engine.Wrap(engine.ErrUnavailable, &Overload{Reason: reason, RetryAfter: max(retryAfter, time.Second), Err: cause})
}

// Retryable reports whether err asks its sender to try again later, and returns
// the Overload that says when: err's own, or one with DefaultRetryAfter for any
// other ERR_UNAVAILABLE (from a sink not wrapped by Limiter.Sink). Any other error
// is not a refusal to retry.
func Retryable(err error) (*Overload, bool) {
	if err == nil {
		return nil, false
	}
	var o *Overload
	if errors.As(err, &o) {
		return o, true
	}
	if engine.CodeOf(err) == engine.ErrUnavailable {
		return &Overload{Reason: ReasonStalled, RetryAfter: DefaultRetryAfter, Err: err}, true
	}
	return nil, false
}

// Limiter admits inbound calls, in total and per connection (package doc).
type Limiter struct {
	// static after New
	cfg Config

	mu      sync.Mutex // guards the fields below
	total   int
	perConn map[engine.ID]int // connections with calls in flight; none hold 0
	queue   []*waiter         // oldest first

	admitted, refusedBusy, refusedWait, stalled atomic.Int64
}

// waiter is one call waiting for a place. ready is closed once it holds one.
type waiter struct {
	conn    engine.ID
	ready   chan struct{}
	granted bool // guarded by Limiter.mu
}

// New returns a Limiter shaped by cfg (zero values are defaults).
func New(cfg Config) (*Limiter, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Limiter{cfg: cfg, perConn: make(map[engine.ID]int)}, nil
}

// Config is the Limiter's configuration with its defaults filled.
func (l *Limiter) Config() Config { return l.cfg }

// Stats is what a Limiter counted, for /metrics and tests.
type Stats struct {
	InFlight int // calls holding a place now
	Queued   int // calls waiting for one now
	// Since New: calls admitted; refused because the queue was full; refused after
	// waiting Config.Wait; admitted calls that came back ERR_UNAVAILABLE.
	Admitted, RefusedBusy, RefusedWait, Stalled int64
}

// Stats reports the Limiter's counts.
func (l *Limiter) Stats() Stats {
	l.mu.Lock()
	inFlight, queued := l.total, len(l.queue)
	l.mu.Unlock()
	return Stats{InFlight: inFlight, Queued: queued, Admitted: l.admitted.Load(),
		RefusedBusy: l.refusedBusy.Load(), RefusedWait: l.refusedWait.Load(), Stalled: l.stalled.Load()}
}

// Enter takes a place for one inbound call of connection conn, waiting at most
// Config.Wait (less if ctx ends first), and returns the function that gives it
// back; call it exactly once when the call ends (later calls do nothing). Without
// a place it returns ERR_UNAVAILABLE with an *Overload cause. A nil Limiter admits
// every call.
func (l *Limiter) Enter(ctx context.Context, conn engine.ID) (release func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	l.mu.Lock()
	// Every queued call is one that does not fit (release hands a freed place to
	// each waiter that does), so a call that fits takes its place at once without
	// overtaking a waiter that could have had it.
	if l.fits(conn) {
		l.hold(conn)
		l.mu.Unlock()
		l.admitted.Add(1)
		return l.releaser(conn), nil
	}
	if len(l.queue) >= max(l.cfg.MaxQueued, 0) {
		l.mu.Unlock()
		l.refusedBusy.Add(1)
		return nil, refusal(ReasonBusy, l.cfg.RetryAfter, nil)
	}
	w := &waiter{conn: conn, ready: make(chan struct{})}
	l.queue = append(l.queue, w)
	l.mu.Unlock()

	t := time.NewTimer(l.cfg.Wait)
	defer t.Stop()
	select {
	case <-w.ready:
		l.admitted.Add(1)
		return l.releaser(conn), nil
	case <-t.C:
	case <-ctx.Done(): // the caller gave up first: refused for want of a place all the same
	}
	l.mu.Lock()
	if w.granted {
		// A place came as the wait ended: take it rather than hand it on.
		l.mu.Unlock()
		l.admitted.Add(1)
		return l.releaser(conn), nil
	}
	l.drop(w)
	l.mu.Unlock()
	l.refusedWait.Add(1)
	return nil, refusal(ReasonWait, l.cfg.RetryAfter, nil)
}

// fits reports whether a call of conn may take a place now. l.mu held.
func (l *Limiter) fits(conn engine.ID) bool {
	if l.cfg.MaxInFlight > 0 && l.total >= l.cfg.MaxInFlight {
		return false
	}
	return l.cfg.MaxPerConnection <= 0 || l.perConn[conn] < l.cfg.MaxPerConnection
}

// hold counts a place taken by conn. l.mu held.
func (l *Limiter) hold(conn engine.ID) {
	l.total++
	l.perConn[conn]++
}

// releaser is the release function of one place of conn.
func (l *Limiter) releaser(conn engine.ID) func() {
	var once sync.Once
	return func() { once.Do(func() { l.release(conn) }) }
}

// release gives back a place of conn and hands the free places to the oldest
// waiters that fit.
func (l *Limiter) release(conn engine.ID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if n := l.perConn[conn] - 1; n > 0 {
		l.perConn[conn] = n
	} else {
		delete(l.perConn, conn)
	}
	kept := l.queue[:0]
	for _, w := range l.queue {
		if l.fits(w.conn) {
			l.hold(w.conn)
			w.granted = true
			close(w.ready)
			continue
		}
		kept = append(kept, w)
	}
	clear(l.queue[len(kept):])
	l.queue = kept
}

// drop takes w out of the queue. l.mu held.
func (l *Limiter) drop(w *waiter) {
	if i := slices.Index(l.queue, w); i >= 0 {
		l.queue = slices.Delete(l.queue, i, i+1)
	}
}
