package redisstate_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/redisstate"
)

// countingSink records what reaches it; Inbound fails while fail is set.
type countingSink struct {
	mu       sync.Mutex
	inbound  []engine.InboundMessage
	receipts []engine.Receipt
	statuses []engine.StatusChange
	fail     atomic.Bool
}

var errInner = errors.New("actor unavailable")

func (s *countingSink) Inbound(_ context.Context, m engine.InboundMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inbound = append(s.inbound, m)
	if s.fail.Load() {
		return errInner
	}
	return nil
}

func (s *countingSink) Receipt(_ context.Context, r engine.Receipt) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.receipts = append(s.receipts, r)
	return nil
}

func (s *countingSink) Status(_ context.Context, st engine.StatusChange) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses = append(s.statuses, st)
	return nil
}

func (s *countingSink) inboundCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.inbound)
}

// gateSink holds each Inbound until the test answers it on answer.
type gateSink struct {
	countingSink
	entered chan struct{}
	answer  chan error
}

func newGateSink() *gateSink {
	return &gateSink{entered: make(chan struct{}, 8), answer: make(chan error)}
}

func (s *gateSink) Inbound(ctx context.Context, m engine.InboundMessage) error {
	_ = s.countingSink.Inbound(ctx, m)
	s.entered <- struct{}{}
	return <-s.answer
}

// brokenKeys is a DedupeKeys whose store cannot be reached.
type brokenKeys struct{ claims, releases atomic.Int32 }

func (k *brokenKeys) Claim(context.Context, string, time.Duration) (bool, error) {
	k.claims.Add(1)
	return false, errors.New("dial tcp: connection refused")
}

func (k *brokenKeys) Release(context.Context, string) error {
	k.releases.Add(1)
	return errors.New("dial tcp: connection refused")
}

func (k *brokenKeys) Extend(context.Context, string, time.Duration) error {
	return errors.New("dial tcp: connection refused")
}

func TestInboundDedupeSink(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b *backend) {
		t.Run("duplicate not forwarded", func(t *testing.T) {
			inner := &countingSink{}
			d := &redisstate.InboundDedupe{Keys: b.dedupe}
			sink := d.Sink(1, inner)
			m := engine.InboundMessage{ProviderID: "wamid.dup", Body: "hi"}
			for range 3 {
				if err := sink.Inbound(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			if n := inner.inboundCount(); n != 1 {
				t.Fatalf("inner sink got %d inbound, want 1", n)
			}
			if s := d.Stats(); s.Duplicates != 2 || s.Released != 0 || s.ClaimErrors != 0 {
				t.Fatalf("stats %+v", s)
			}
			// Another connection's message with the same provider id is its own.
			if err := d.Sink(2, inner).Inbound(ctx, m); err != nil {
				t.Fatal(err)
			}
			if n := inner.inboundCount(); n != 2 {
				t.Fatalf("other connection's message absorbed: inner got %d", n)
			}
		})
		t.Run("handled key lives for TTL, not PendingTTL", func(t *testing.T) {
			inner := &countingSink{}
			d := &redisstate.InboundDedupe{Keys: b.dedupe, PendingTTL: 50 * time.Millisecond, TTL: time.Minute}
			sink := d.Sink(1, inner)
			m := engine.InboundMessage{ProviderID: "wamid.ttl"}
			if err := sink.Inbound(ctx, m); err != nil {
				t.Fatal(err)
			}
			time.Sleep(150 * time.Millisecond)
			if err := sink.Inbound(ctx, m); err != nil {
				t.Fatal(err)
			}
			if n := inner.inboundCount(); n != 1 {
				t.Fatalf("inner sink got %d inbound after the pending TTL, want 1", n)
			}
		})
		t.Run("a duplicate while the first is handled is refused for a retry, never absorbed", func(t *testing.T) {
			inner := newGateSink()
			d := &redisstate.InboundDedupe{Keys: b.dedupe}
			sink := d.Sink(1, inner)
			m := engine.InboundMessage{ProviderID: "wamid.inflight"}
			first := make(chan error, 1)
			go func() { first <- sink.Inbound(ctx, m) }()
			<-inner.entered
			// Were this answered 200 and the first then failed, the message would be lost.
			if err := sink.Inbound(ctx, m); engine.CodeOf(err) != engine.ErrUnavailable {
				t.Fatalf("duplicate during handling = %v, want ERR_UNAVAILABLE (deliver again later)", err)
			}
			inner.answer <- errInner
			if err := <-first; !errors.Is(err, errInner) {
				t.Fatalf("first delivery = %v", err)
			}
			// The provider delivers again: handled this time, then absorbed.
			go func() { inner.answer <- nil }()
			if err := sink.Inbound(ctx, m); err != nil {
				t.Fatal(err)
			}
			<-inner.entered
			if err := sink.Inbound(ctx, m); err != nil {
				t.Fatal(err)
			}
			if n := inner.inboundCount(); n != 2 {
				t.Fatalf("inner sink got %d inbound, want 2 (failed first, handled retry)", n)
			}
			if s := d.Stats(); s.Busy != 1 || s.Released != 1 || s.Duplicates != 1 {
				t.Fatalf("stats %+v", s)
			}
		})
		t.Run("keys of a node that died mid-way lapse; nothing is absorbed meanwhile", func(t *testing.T) {
			inner := &countingSink{}
			d := &redisstate.InboundDedupe{Keys: b.dedupe, PendingTTL: 50 * time.Millisecond, TTL: time.Minute}
			sink := d.Sink(1, inner)
			m := engine.InboundMessage{ProviderID: "wamid.orphan"}
			done := redisstate.InboundKey(1, m.ProviderID)
			for _, k := range []string{"busy:" + done, done} { // what the dead node held
				if ok, err := b.dedupe.Claim(ctx, k, 50*time.Millisecond); err != nil || !ok {
					t.Fatalf("claim %s: %v %v", k, ok, err)
				}
			}
			if err := sink.Inbound(ctx, m); engine.CodeOf(err) != engine.ErrUnavailable {
				t.Fatalf("delivery while the dead node's keys live = %v, want ERR_UNAVAILABLE", err)
			}
			time.Sleep(150 * time.Millisecond)
			if err := sink.Inbound(ctx, m); err != nil {
				t.Fatal(err)
			}
			if n := inner.inboundCount(); n != 1 {
				t.Fatalf("inner sink got %d inbound after the keys lapsed, want 1", n)
			}
		})
		t.Run("failure releases", func(t *testing.T) {
			inner := &countingSink{}
			d := &redisstate.InboundDedupe{Keys: b.dedupe}
			sink := d.Sink(1, inner)
			m := engine.InboundMessage{ProviderID: "wamid.fail"}
			inner.fail.Store(true)
			if err := sink.Inbound(ctx, m); !errors.Is(err, errInner) {
				t.Fatalf("inner error not returned: %v", err)
			}
			inner.fail.Store(false)
			// The provider's retry is handled, then absorbed.
			for range 2 {
				if err := sink.Inbound(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			if n := inner.inboundCount(); n != 2 {
				t.Fatalf("inner sink got %d inbound, want 2 (failed + retry)", n)
			}
			if s := d.Stats(); s.Released != 1 || s.Duplicates != 1 {
				t.Fatalf("stats %+v", s)
			}
		})
		t.Run("failure with a cancelled delivery still releases", func(t *testing.T) {
			inner := &countingSink{}
			d := &redisstate.InboundDedupe{Keys: b.dedupe}
			m := engine.InboundMessage{ProviderID: "wamid.hangup"}
			cctx, cancel := context.WithCancel(ctx)
			inner.fail.Store(true)
			sink := d.Sink(1, cancelSink{next: inner, cancel: cancel})
			if err := sink.Inbound(cctx, m); err == nil {
				t.Fatal("failure swallowed")
			}
			inner.fail.Store(false)
			if err := d.Sink(1, inner).Inbound(ctx, m); err != nil {
				t.Fatal(err)
			}
			if n := inner.inboundCount(); n != 2 {
				t.Fatalf("retry after a hung-up failure absorbed: inner got %d", n)
			}
		})
		t.Run("hostile provider ids", func(t *testing.T) {
			inner := &countingSink{}
			d := &redisstate.InboundDedupe{Keys: b.dedupe}
			sink := d.Sink(7, inner)
			long := strings.Repeat("x", 10_000)
			ids := []string{"", "", "a:b:c", "a:b:c", ":", long, long, long + "y", "{7}", "k:zz", "h:zz"}
			for _, id := range ids {
				if err := sink.Inbound(ctx, engine.InboundMessage{ProviderID: id}); err != nil {
					t.Fatalf("%.20q: %v", id, err)
				}
			}
			// Both empty ids pass (not de-duplicated); each distinct non-empty id once.
			if n := inner.inboundCount(); n != 9 {
				t.Fatalf("inner sink got %d inbound, want 9", n)
			}
			// A provider id holding the separator cannot pose as another connection's
			// (numeric connection ids end at the first ':').
			if redisstate.InboundKey(7, "1:x") == redisstate.InboundKey(71, ":x") {
				t.Fatal("connection 7's id and connection 71's share a key")
			}
			if k := redisstate.InboundKey(7, long); len(k) > 100 || !strings.HasPrefix(k, "inbound:7:h:") {
				t.Fatalf("long id's key %.120q", k)
			}
			if b.redis != nil {
				for _, k := range scanKeys(t, b.redis, b.prefix) {
					if len(k) > 300 {
						t.Fatalf("Redis key of %d bytes", len(k))
					}
				}
			}
		})
		t.Run("receipts and status untouched", func(t *testing.T) {
			inner := &countingSink{}
			d := &redisstate.InboundDedupe{Keys: b.dedupe}
			sink := d.Sink(1, inner)
			for range 2 {
				if err := sink.Receipt(ctx, engine.Receipt{ProviderID: "wamid.r", Ack: engine.AckRead}); err != nil {
					t.Fatal(err)
				}
				if err := sink.Status(ctx, engine.StatusChange{Status: engine.ConnConnected}); err != nil {
					t.Fatal(err)
				}
			}
			if len(inner.receipts) != 2 || len(inner.statuses) != 2 {
				t.Fatalf("receipts %d, statuses %d: want 2 each", len(inner.receipts), len(inner.statuses))
			}
			// A receipt claims nothing: the message of that id is still first.
			if err := sink.Inbound(ctx, engine.InboundMessage{ProviderID: "wamid.r"}); err != nil || inner.inboundCount() != 1 {
				t.Fatalf("inbound after receipts: err %v, inner %d", err, inner.inboundCount())
			}
		})
	})
}

func TestInboundDedupeSinkClaimErrorFallsThrough(t *testing.T) {
	ctx := context.Background()
	keys := &brokenKeys{}
	inner := &countingSink{}
	var logs bytes.Buffer
	clock := newStepClock()
	d := &redisstate.InboundDedupe{Keys: keys, Logger: zerolog.New(&logs), Clock: clock}
	sink := d.Sink(1, inner)
	m := engine.InboundMessage{ProviderID: "wamid.down"}
	for range 3 {
		if err := sink.Inbound(ctx, m); err != nil {
			t.Fatalf("ingestion stopped by the key store: %v", err)
		}
	}
	if n := inner.inboundCount(); n != 3 {
		t.Fatalf("inner sink got %d, want every delivery (3)", n)
	}
	if s := d.Stats(); s.ClaimErrors != 3 || s.Duplicates != 0 {
		t.Fatalf("stats %+v", s)
	}
	// One warning per burst: the next comes a minute later, with the count skipped.
	if n := strings.Count(logs.String(), "\n"); n != 1 {
		t.Fatalf("%d warnings for a burst of 3, want 1:\n%s", n, logs.String())
	}
	clock.add(time.Minute)
	if err := sink.Inbound(ctx, m); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(logs.String()), "\n"); len(lines) != 2 || !strings.Contains(lines[1], `"suppressed":2`) {
		t.Fatalf("warnings after a minute:\n%s", logs.String())
	}
	// The inner sink's error is the answer, not the key store's.
	inner.fail.Store(true)
	if err := sink.Inbound(ctx, m); !errors.Is(err, errInner) {
		t.Fatalf("got %v, want the inner error", err)
	}
	if keys.releases.Load() != 0 {
		t.Fatal("released a key never claimed")
	}
}

// TestInboundDedupeSinkAcrossNodes: a re-delivery that lands on another node (its own
// Redis client, same prefix) is absorbed there.
func TestInboundDedupeSinkAcrossNodes(t *testing.T) {
	ctx := context.Background()
	prefix := "atende-test:" + randomHex(6) + ":"
	a, b := openRedis(t, prefix), openRedis(t, prefix)
	t.Cleanup(func() { deleteKeys(t, a, prefix) })
	innerA, innerB := &countingSink{}, &countingSink{}
	da, db := &redisstate.InboundDedupe{Keys: a.DedupeKeys()}, &redisstate.InboundDedupe{Keys: b.DedupeKeys()}
	m := engine.InboundMessage{ProviderID: "123:456"}
	if err := da.Sink(9, innerA).Inbound(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := db.Sink(9, innerB).Inbound(ctx, m); err != nil {
		t.Fatal(err)
	}
	if innerA.inboundCount() != 1 || innerB.inboundCount() != 0 || db.Stats().Duplicates != 1 {
		t.Fatalf("node A %d, node B %d, B's duplicates %d", innerA.inboundCount(), innerB.inboundCount(), db.Stats().Duplicates)
	}
	keys := scanKeys(t, a, prefix)
	if len(keys) != 1 || keys[0] != prefix+"dd:k:inbound:9:k:123:456" {
		t.Fatalf("keys %q", keys)
	}
	ttl, err := a.Client().PTTL(ctx, keys[0]).Result()
	if err != nil || ttl < 59*time.Minute || ttl > time.Hour {
		t.Fatalf("TTL of a handled message's key %v (%v), want about 1 h", ttl, err)
	}
}

// cancelSink cancels the delivery's context, then fails through next: a client that
// hung up mid-way.
type cancelSink struct {
	next   engine.ChannelSink
	cancel context.CancelFunc
}

func (s cancelSink) Inbound(ctx context.Context, m engine.InboundMessage) error {
	s.cancel()
	if err := s.next.Inbound(ctx, m); err != nil {
		return err
	}
	return ctx.Err()
}
func (s cancelSink) Receipt(ctx context.Context, r engine.Receipt) error {
	return s.next.Receipt(ctx, r)
}
func (s cancelSink) Status(ctx context.Context, st engine.StatusChange) error {
	return s.next.Status(ctx, st)
}

// recordingKeys records the calls made to the keys it wraps.
type recordingKeys struct {
	engine.DedupeKeys
	mu    sync.Mutex
	calls []string
}

func (k *recordingKeys) record(c string) {
	k.mu.Lock()
	k.calls = append(k.calls, c)
	k.mu.Unlock()
}

func (k *recordingKeys) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	k.record("claim " + key + " " + ttl.String())
	return k.DedupeKeys.Claim(ctx, key, ttl)
}

func (k *recordingKeys) Extend(ctx context.Context, key string, ttl time.Duration) error {
	k.record("extend " + key + " " + ttl.String())
	return k.DedupeKeys.Extend(ctx, key, ttl)
}

func (k *recordingKeys) Release(ctx context.Context, key string) error {
	k.record("release " + key)
	return k.DedupeKeys.Release(ctx, key)
}

// TestInboundDedupeSinkCalls: a new message costs four key calls (claim busy, claim
// done for the pending TTL, extend done to the TTL, release busy); a duplicate three.
func TestInboundDedupeSinkCalls(t *testing.T) {
	ctx := context.Background()
	keys := &recordingKeys{DedupeKeys: redisstate.NewMemoryDedupe(nil)}
	d := &redisstate.InboundDedupe{Keys: keys, TTL: time.Hour, PendingTTL: time.Minute}
	sink := d.Sink(1, &countingSink{})
	m := engine.InboundMessage{ProviderID: "wamid.calls"}
	for range 2 {
		if err := sink.Inbound(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	done := redisstate.InboundKey(1, m.ProviderID)
	want := []string{
		"claim busy:" + done + " 1m0s", "claim " + done + " 1m0s", "extend " + done + " 1h0m0s", "release busy:" + done,
		"claim busy:" + done + " 1m0s", "claim " + done + " 1m0s", "release busy:" + done,
	}
	if strings.Join(keys.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(keys.calls, "\n"), strings.Join(want, "\n"))
	}
}
