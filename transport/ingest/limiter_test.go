package ingest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atende/engine"
)

// long is a wait no test reaches: a waiter is woken by a release, never by its timer.
const long = time.Minute

func newLimiter(t *testing.T, cfg Config) *Limiter {
	t.Helper()
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// eventually polls cond every few milliseconds until it holds, for at most 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// overloadOf checks that err is the retryable refusal and returns its Overload.
func overloadOf(t *testing.T, err error) *Overload {
	t.Helper()
	if engine.CodeOf(err) != engine.ErrUnavailable {
		t.Fatalf("code of %v = %s, want ERR_UNAVAILABLE", err, engine.CodeOf(err))
	}
	o, ok := Retryable(err)
	if !ok {
		t.Fatalf("%v is not retryable", err)
	}
	if o.RetryAfterSeconds() < 1 {
		t.Fatalf("retry after %d s", o.RetryAfterSeconds())
	}
	return o
}

func TestConfigDefaults(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   Config
		want Config
	}{
		{"zero", Config{}, Config{MaxInFlight: 256, MaxPerConnection: 64, MaxQueued: 256, Wait: time.Second, RetryAfter: 2 * time.Second}},
		{"small node bounds the connection", Config{MaxInFlight: 8}, Config{MaxInFlight: 8, MaxPerConnection: 8, MaxQueued: 8, Wait: time.Second, RetryAfter: 2 * time.Second}},
		{"unbounded node", Config{MaxInFlight: -1}, Config{MaxInFlight: -1, MaxPerConnection: 64, MaxQueued: 256, Wait: time.Second, RetryAfter: 2 * time.Second}},
		{"kept", Config{MaxInFlight: 10, MaxPerConnection: 3, MaxQueued: -1, Wait: 5 * time.Millisecond, RetryAfter: 7 * time.Second},
			Config{MaxInFlight: 10, MaxPerConnection: 3, MaxQueued: -1, Wait: 5 * time.Millisecond, RetryAfter: 7 * time.Second}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := newLimiter(t, tt.in).Config(); got != tt.want {
				t.Fatalf("config %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := New(Config{Wait: -time.Second}); err == nil {
		t.Fatal("a negative wait was accepted")
	}
}

// TestLimiterBoundsTheNodeAndEachConnection: places run out per connection first,
// then for the node; a refusal for want of a place is ERR_UNAVAILABLE with an
// Overload and Retry-After; released places are free again.
func TestLimiterBoundsTheNodeAndEachConnection(t *testing.T) {
	l := newLimiter(t, Config{MaxInFlight: 3, MaxPerConnection: 2, MaxQueued: -1, RetryAfter: 3 * time.Second})
	ctx := context.Background()
	var held []func()
	enter := func(conn engine.ID) error {
		release, err := l.Enter(ctx, conn)
		if err == nil {
			held = append(held, release)
		}
		return err
	}
	for _, conn := range []engine.ID{1, 1} {
		if err := enter(conn); err != nil {
			t.Fatalf("connection %d: %v", conn, err)
		}
	}
	o := overloadOf(t, enter(1)) // connection 1 holds its 2
	if o.Reason != ReasonBusy || o.RetryAfterSeconds() != 3 {
		t.Fatalf("refusal %+v, want busy after 3 s", o)
	}
	if err := enter(2); err != nil { // another connection still gets in
		t.Fatal(err)
	}
	overloadOf(t, enter(3)) // the node holds its 3
	if s := l.Stats(); s.InFlight != 3 || s.Admitted != 3 || s.RefusedBusy != 2 {
		t.Fatalf("stats %+v", s)
	}
	for _, release := range held {
		release()
		release() // a second call gives nothing back twice
	}
	if s := l.Stats(); s.InFlight != 0 || len(l.perConn) != 0 {
		t.Fatalf("after every release: stats %+v, per connection %v", s, l.perConn)
	}
	if err := enter(3); err != nil {
		t.Fatalf("after the releases: %v", err)
	}
}

// TestLimiterQueueHandsPlacesOnInOrder: calls without a place wait, oldest first,
// up to MaxQueued; a release wakes the oldest that fits, skipping one whose
// connection is still full.
func TestLimiterQueueHandsPlacesOnInOrder(t *testing.T) {
	l := newLimiter(t, Config{MaxInFlight: 2, MaxPerConnection: 1, MaxQueued: 2, Wait: long})
	ctx := context.Background()
	r1, err := l.Enter(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := l.Enter(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	type entered struct {
		conn    engine.ID
		release func()
		err     error
	}
	got := make(chan entered, 2)
	wait := func(conn engine.ID) {
		go func() {
			release, err := l.Enter(ctx, conn)
			got <- entered{conn, release, err}
		}()
	}
	wait(1) // behind connection 1's own call
	eventually(t, "the first waiter", func() bool { return l.Stats().Queued == 1 })
	wait(3) // behind the node's bound
	eventually(t, "the second waiter", func() bool { return l.Stats().Queued == 2 })
	if o := overloadOf(t, func() error { _, err := l.Enter(ctx, 4); return err }()); o.Reason != ReasonBusy {
		t.Fatalf("a call beyond the queue: %+v, want busy", o)
	}

	r2() // frees a node place; connection 1 is still full, so connection 3 gets it
	e := <-got
	if e.err != nil || e.conn != 3 {
		t.Fatalf("after connection 2's release: %+v, want connection 3 in", e)
	}
	r1()
	if e := <-got; e.err != nil || e.conn != 1 {
		t.Fatalf("after connection 1's release: %+v, want connection 1 in", e)
	}
	if s := l.Stats(); s.InFlight != 2 || s.Queued != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// TestLimiterWaitEndsInRefusal: a waiter that gets no place within Wait, or whose
// context ends, is refused and leaves the queue.
func TestLimiterWaitEndsInRefusal(t *testing.T) {
	l := newLimiter(t, Config{MaxInFlight: 1, Wait: 20 * time.Millisecond})
	release, err := l.Enter(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Enter(context.Background(), 2)
	if o := overloadOf(t, err); o.Reason != ReasonWait {
		t.Fatalf("refusal %+v, want wait", o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	l.cfg.Wait = long // now a waiter is woken only by its context
	go func() {
		_, err := l.Enter(ctx, 2)
		done <- err
	}()
	eventually(t, "the waiter", func() bool { return l.Stats().Queued == 1 })
	cancel()
	overloadOf(t, <-done)
	if s := l.Stats(); s.Queued != 0 || s.RefusedWait != 2 || s.InFlight != 1 {
		t.Fatalf("stats %+v", s)
	}
	release()
	if s := l.Stats(); s.InFlight != 0 {
		t.Fatalf("after the release: %+v", s)
	}
}

// TestLimiterUnderContentionLeavesNothingHeld: many goroutines enter and leave
// through every path — admitted, refused, context cancelled, panicking inside a
// Sink — and once they are done no place is held, none waits, and the bounds were
// never exceeded.
func TestLimiterUnderContentionLeavesNothingHeld(t *testing.T) {
	l := newLimiter(t, Config{MaxInFlight: 4, MaxPerConnection: 2, MaxQueued: 8, Wait: 5 * time.Millisecond})
	var inside, most atomic.Int64
	var perConn [3]atomic.Int64
	work := func(conn engine.ID, i int) {
		n := inside.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if c := perConn[conn].Add(1); c > 2 {
			t.Errorf("connection %d holds %d places", conn, c)
		}
		time.Sleep(time.Duration(i%3) * time.Millisecond)
		perConn[conn].Add(-1)
		inside.Add(-1)
	}
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				conn := engine.ID((g + i) % 3)
				ctx, cancel := context.WithCancel(context.Background())
				if i%7 == 0 {
					cancel()
				}
				s := l.Sink(conn, panicky{work: func() { work(conn, i) }, panics: i%5 == 0})
				func() {
					defer func() { _ = recover() }()
					_ = s.Inbound(ctx, engine.InboundMessage{})
				}()
				cancel()
			}
		}()
	}
	wg.Wait()
	s := l.Stats()
	if s.InFlight != 0 || s.Queued != 0 || len(l.perConn) != 0 {
		t.Fatalf("after the load: stats %+v, per connection %v", s, l.perConn)
	}
	if most.Load() > 4 {
		t.Fatalf("%d calls inside at once, bound 4", most.Load())
	}
	if s.Admitted == 0 || s.RefusedBusy+s.RefusedWait == 0 {
		t.Fatalf("stats %+v: want both admissions and refusals", s)
	}
	t.Logf("stats %+v", s)
}

// panicky is a sink whose Inbound runs work and then, if panics, panics.
type panicky struct {
	work   func()
	panics bool
}

func (p panicky) Inbound(context.Context, engine.InboundMessage) error {
	p.work()
	if p.panics {
		panic("sink panicked")
	}
	return nil
}
func (panicky) Receipt(context.Context, engine.Receipt) error     { return nil }
func (panicky) Status(context.Context, engine.StatusChange) error { return nil }

// TestSinkTurnsStallsIntoRetryableRefusals: what the wrapped sink answers
// ERR_UNAVAILABLE or past its deadline comes back as an Overload "stalled" with the
// Limiter's Retry-After, also without a Limiter; other errors pass unchanged and
// status changes take no place.
func TestSinkTurnsStallsIntoRetryableRefusals(t *testing.T) {
	timeout := engine.Wrap(engine.ErrUnavailable, errors.New("connection actor: future: timeout"))
	refused := engine.E(engine.ErrValidation)
	l := newLimiter(t, Config{MaxInFlight: 1, RetryAfter: 4 * time.Second})
	for _, tt := range []struct {
		name       string
		l          *Limiter
		err        error
		stalled    bool
		retryAfter int
	}{
		{"actor timeout", l, timeout, true, 4},
		{"deadline on the way", l, context.DeadlineExceeded, true, 4},
		{"no limiter", nil, timeout, true, 2},
		{"final refusal", l, refused, false, 0},
		{"recorded", l, nil, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.l.Sink(7, failing{err: tt.err})
			err := s.Inbound(context.Background(), engine.InboundMessage{ProviderID: "p"})
			if !tt.stalled {
				if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
					t.Fatalf("err %v, want %v", err, tt.err)
				}
				if _, ok := Retryable(err); ok && err != nil {
					t.Fatalf("%v is retryable", err)
				}
				return
			}
			o := overloadOf(t, err)
			if o.Reason != ReasonStalled || o.RetryAfterSeconds() != tt.retryAfter || !errors.Is(err, tt.err) {
				t.Fatalf("refusal %+v (%v), want stalled after %d s wrapping %v", o, err, tt.retryAfter, tt.err)
			}
		})
	}
	if st := l.Stats(); st.InFlight != 0 || st.Stalled != 2 {
		t.Fatalf("stats %+v", st)
	}
	// A status change passes even with every place taken.
	release, err := l.Enter(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := l.Sink(7, failing{}).Status(context.Background(), engine.StatusChange{}); err != nil {
		t.Fatalf("status with every place taken: %v", err)
	}
	if err := l.Sink(7, failing{}).Receipt(context.Background(), engine.Receipt{}); engine.CodeOf(err) != engine.ErrUnavailable {
		t.Fatalf("receipt with every place taken: %v, want refused", err)
	}
}

// failing is a sink that answers err to every call.
type failing struct{ err error }

func (f failing) Inbound(context.Context, engine.InboundMessage) error { return f.err }
func (f failing) Receipt(context.Context, engine.Receipt) error        { return f.err }
func (f failing) Status(context.Context, engine.StatusChange) error    { return f.err }
