package lease_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/lease"
)

// fakeChannel records whether it runs.
type fakeChannel struct {
	mu      sync.Mutex
	running bool
	starts  int
	stops   int
}

func (f *fakeChannel) Start(context.Context, engine.ChannelSink) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running = true
	f.starts++
	return nil
}

func (f *fakeChannel) Send(context.Context, engine.OutboundMessage) (string, error) { return "p1", nil }

func (f *fakeChannel) Stop(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running = false
	f.stops++
	return nil
}

func (f *fakeChannel) state() (bool, int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.running, f.starts, f.stops
}

type factory struct{ ch *fakeChannel }

func (f factory) NewChannel(engine.Connection) (engine.Channel, error) { return f.ch, nil }

// node is one node's lease locker and channel decorator over a fake channel.
type node struct {
	locker *lease.Postgres
	ch     *fakeChannel
	fac    *lease.Channels
}

func newNode(t *testing.T, d *db.DB, wait time.Duration) *node {
	t.Helper()
	l, err := lease.NewPostgres(context.Background(), d, lease.Config{CheckInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ch := &fakeChannel{}
	return &node{locker: l, ch: ch, fac: &lease.Channels{Next: factory{ch}, Locker: l, Wait: wait, Retry: 20 * time.Millisecond,
		Metrics: lease.NewMetrics()}}
}

func (n *node) channel(t *testing.T, id engine.ID) engine.Channel {
	t.Helper()
	ch, err := n.fac.NewChannel(engine.Connection{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestOneChannelSessionAtATime(t *testing.T) {
	d := dbtest.Open(t, db.Postgres)
	ctx := context.Background()
	a, b := newNode(t, d, 0), newNode(t, d, 300*time.Millisecond)
	const conn = 42
	chA, chB := a.channel(t, conn), b.channel(t, conn)

	if err := chA.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := chA.Send(ctx, engine.OutboundMessage{}); err != nil {
		t.Fatalf("send on the holder: %v", err)
	}
	// The second node cannot start the same connection while the first runs it.
	err := chB.Start(ctx, nil)
	if !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("second start: %v, want ErrChannelTemporary", err)
	}
	if running, _, _ := b.ch.state(); running {
		t.Fatal("second node's channel runs beside the first")
	}
	if _, err := chB.Send(ctx, engine.OutboundMessage{}); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("send without the lease: %v", err)
	}
	if n := count(b.fac.Metrics.Conflicts); n != 1 {
		t.Fatalf("conflicts = %v, want 1", n)
	}
	// Another connection is independent.
	other := b.channel(t, conn+1)
	if err := other.Start(ctx, nil); err != nil {
		t.Fatalf("another connection: %v", err)
	}
	_ = other.Stop(ctx)

	// After Stop the lease is free.
	if err := chA.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := chB.Start(ctx, nil); err != nil {
		t.Fatalf("start after the holder stopped: %v", err)
	}
	if running, _, _ := a.ch.state(); running {
		t.Fatal("first channel still runs")
	}

	// A Start waiting without bound (Wait 0) comes up as soon as the holder stops.
	chA2 := a.channel(t, conn)
	started := make(chan error, 1)
	go func() { started <- chA2.Start(ctx, nil) }()
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-started:
		t.Fatalf("start returned while the lease was held: %v", err)
	default:
	}
	if err := chB.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-started:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiting start did not take the freed lease")
	}
	// Stop aborts a Start that waits.
	chB2 := b.channel(t, conn)
	go func() { started <- chB2.Start(ctx, nil) }()
	time.Sleep(50 * time.Millisecond)
	_ = chB2.Stop(ctx)
	if err := <-started; !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("start aborted by stop: %v", err)
	}
	_ = chA2.Stop(ctx)
}

func TestLeaseFreedWhenHolderSessionDies(t *testing.T) {
	d := dbtest.Open(t, db.Postgres)
	ctx := context.Background()
	a, b := newNode(t, d, 0), newNode(t, d, 200*time.Millisecond)
	const conn = 7
	chA, chB := a.channel(t, conn), b.channel(t, conn)
	if err := chA.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := chB.Start(ctx, nil); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("second start: %v", err)
	}
	// The holder's database connection dies (as when its process is killed).
	pid := a.locker.Backend()
	if pid == 0 {
		t.Fatal("no lease session")
	}
	var ok bool
	if err := d.SQL.QueryRowContext(ctx, `SELECT pg_terminate_backend($1)`, int64(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("terminate %d: %v %v", pid, ok, err)
	}
	// The lease is free at once for the other node.
	waitFor(t, "the lease to be free", func() bool { return chB.Start(ctx, nil) == nil })
	// The holder notices within its check interval and stops its channel.
	waitFor(t, "the holder to stop its channel", func() bool { running, _, _ := a.ch.state(); return !running })
	if n := count(a.fac.Metrics.Lost); n != 1 {
		t.Fatalf("lost = %v, want 1", n)
	}
	if _, err := chA.Send(ctx, engine.OutboundMessage{}); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("send after losing the lease: %v", err)
	}
	// When the other node lets go, the first takes the lease back and starts again.
	if err := chB.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first channel to start again", func() bool { running, starts, _ := a.ch.state(); return running && starts == 2 })
	if _, err := chA.Send(ctx, engine.OutboundMessage{}); err != nil {
		t.Fatalf("send after the lease came back: %v", err)
	}
	if err := chA.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if running, _, _ := a.ch.state(); running {
		t.Fatal("stopped channel runs")
	}
}

func TestLocalLocker(t *testing.T) {
	l := lease.NewLocal()
	ctx := context.Background()
	x, err := l.TryAcquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.TryAcquire(ctx, 1); !errors.Is(err, lease.ErrHeld) {
		t.Fatalf("second acquire: %v", err)
	}
	_ = x.Release(ctx)
	if _, err := l.TryAcquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// The keys PostgreSQL refuses are refused here too.
	for _, k := range []int64{0, -1, 1 << 31} {
		if _, err := l.TryAcquire(ctx, k); err == nil {
			t.Fatalf("key %d accepted", k)
		}
	}
	d := dbtest.Open(t, db.SQLite)
	if lk, err := lease.New(ctx, d, lease.Config{}); err != nil {
		t.Fatal(err)
	} else if _, ok := lk.(*lease.Local); !ok {
		t.Fatalf("SQLite locker %T", lk)
	}
}

func count(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		return -1
	}
	return m.GetCounter().GetValue()
}

type idemChannel struct{ *fakeChannel }

func (idemChannel) ResendIsIdempotent() bool { return true }

type anyFactory struct{ ch engine.Channel }

func (f anyFactory) NewChannel(engine.Connection) (engine.Channel, error) { return f.ch, nil }

// The lease does not hide whether the channel de-duplicates re-sends.
func TestLeasedChannelPassesIdempotentSenderThrough(t *testing.T) {
	for _, tc := range []struct {
		ch   engine.Channel
		want bool
	}{{&fakeChannel{}, false}, {idemChannel{&fakeChannel{}}, true}} {
		ch, err := (&lease.Channels{Next: anyFactory{tc.ch}, Locker: lease.NewLocal()}).NewChannel(engine.Connection{ID: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := engine.ResendIsIdempotent(ch); got != tc.want {
			t.Fatalf("leased %T: ResendIsIdempotent = %v, want %v", tc.ch, got, tc.want)
		}
	}
}

type endingChannel struct {
	*fakeChannel
	ends *int
}

func (c endingChannel) End(ctx context.Context) error {
	*c.ends++
	return c.Stop(ctx)
}

// End stops the leased channel, frees its lease, and ends the sessions of a channel
// whose sessions reach past its node; on any other channel it is Stop.
func TestLeasedChannelEnd(t *testing.T) {
	ctx := context.Background()
	locker := lease.NewLocal()
	ends := 0
	inner := &fakeChannel{}
	ch, err := (&lease.Channels{Next: anyFactory{endingChannel{inner, &ends}}, Locker: locker}).NewChannel(engine.Connection{ID: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.(engine.ChannelEnder).End(ctx); err != nil {
		t.Fatal(err)
	}
	if running, _, _ := inner.state(); running || ends != 1 {
		t.Fatalf("after End: running %v, ends %d", running, ends)
	}
	l, err := locker.TryAcquire(ctx, 4)
	if err != nil {
		t.Fatalf("lease not freed by End: %v", err)
	}
	_ = l.Release(ctx)

	plain := &fakeChannel{}
	ch, _ = (&lease.Channels{Next: anyFactory{plain}, Locker: locker}).NewChannel(engine.Connection{ID: 5})
	if err := ch.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.(engine.ChannelEnder).End(ctx); err != nil {
		t.Fatal(err)
	}
	if running, _, stops := plain.state(); running || stops != 1 {
		t.Fatalf("plain channel after End: running %v, stops %d", running, stops)
	}
}
