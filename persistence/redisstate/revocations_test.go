package redisstate_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/redisstate"
)

// recorder collects the ids one subscription receives.
type recorder struct {
	mu  sync.Mutex
	ids []engine.ID
}

func (r *recorder) add(id engine.ID) { r.mu.Lock(); r.ids = append(r.ids, id); r.mu.Unlock() }

func (r *recorder) got() []engine.ID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ids)
}

func subscribe(t *testing.T, v engine.Revocations) (*recorder, func()) {
	t.Helper()
	rec := &recorder{}
	cancel, err := v.Subscribe(context.Background(), rec.add)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	t.Cleanup(cancel)
	return rec, cancel
}

func TestRevocations(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b *backend) {
		t.Run("fan-out to every node in order", func(t *testing.T) {
			onA, _ := subscribe(t, b.nodeA)
			onB, _ := subscribe(t, b.nodeB)
			var want []engine.ID
			for id := engine.ID(1); id <= 50; id++ {
				pub := b.nodeA
				if id%2 == 0 {
					pub = b.nodeB
				}
				if err := pub.Publish(ctx, id); err != nil {
					t.Fatal(err)
				}
				want = append(want, id)
			}
			for name, rec := range map[string]*recorder{"node A": onA, "node B": onB} {
				eventually(t, 5*time.Second, name+" receives all", func() bool { return len(rec.got()) >= len(want) })
				if got := rec.got(); !slices.Equal(got, want) {
					t.Fatalf("%s got %v, want %v", name, got, want)
				}
			}
		})
		t.Run("cancel stops one subscription only", func(t *testing.T) {
			stay, _ := subscribe(t, b.nodeA)
			gone, cancel := subscribe(t, b.nodeB)
			if err := b.nodeA.Publish(ctx, 7); err != nil {
				t.Fatal(err)
			}
			eventually(t, 5*time.Second, "both receive 7", func() bool { return len(stay.got()) == 1 && len(gone.got()) == 1 })
			cancel()
			cancel() // idempotent
			if err := b.nodeA.Publish(ctx, 8); err != nil {
				t.Fatal(err)
			}
			eventually(t, 5*time.Second, "remaining receives 8", func() bool { return len(stay.got()) == 2 })
			if got := gone.got(); !slices.Equal(got, []engine.ID{7}) {
				t.Fatalf("cancelled subscription got %v", got)
			}
		})
		t.Run("logouts reach SubscribeAll only", func(t *testing.T) {
			a, b2 := b.nodeA.(redisstate.SessionRevocations), b.nodeB.(redisstate.SessionRevocations)
			users, _ := subscribe(t, b.nodeA)
			var mu sync.Mutex
			var all []redisstate.Revocation
			cancel, err := b2.SubscribeAll(ctx, func(r redisstate.Revocation) { mu.Lock(); all = append(all, r); mu.Unlock() })
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cancel)
			if err := a.EndSession(ctx, 5, "fam-1"); err != nil {
				t.Fatal(err)
			}
			if err := a.Publish(ctx, 6); err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{"", "a b", strings.Repeat("x", 201)} {
				if err := a.EndSession(ctx, 5, bad); err == nil {
					t.Fatalf("session %q accepted", bad)
				}
			}
			eventually(t, 5*time.Second, "both messages", func() bool { mu.Lock(); defer mu.Unlock(); return len(all) >= 2 })
			mu.Lock()
			got := slices.Clone(all)
			mu.Unlock()
			want := []redisstate.Revocation{{UserID: 5, Session: "fam-1"}, {UserID: 6}}
			if !slices.Equal(got, want) {
				t.Fatalf("SubscribeAll got %+v, want %+v", got, want)
			}
			eventually(t, 5*time.Second, "user revocation", func() bool { return len(users.got()) >= 1 })
			if !slices.Equal(users.got(), []engine.ID{6}) {
				t.Fatalf("Subscribe got %v, want only the user revocation", users.got())
			}
		})
		t.Run("another deployment hears nothing", func(t *testing.T) {
			mine, _ := subscribe(t, b.nodeA)
			theirs, _ := subscribe(t, b.elsewhere)
			if err := b.nodeA.Publish(ctx, 41); err != nil {
				t.Fatal(err)
			}
			if err := b.elsewhere.Publish(ctx, 42); err != nil {
				t.Fatal(err)
			}
			eventually(t, 5*time.Second, "each hears its own", func() bool { return len(mine.got()) == 1 && len(theirs.got()) == 1 })
			if !slices.Equal(mine.got(), []engine.ID{41}) || !slices.Equal(theirs.got(), []engine.ID{42}) {
				t.Fatalf("mine %v, theirs %v", mine.got(), theirs.got())
			}
		})
	})
}

func TestRevocationsClose(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		m := redisstate.NewMemoryRevocations(zerolog.Nop())
		rec, _ := subscribe(t, m)
		_ = m.Publish(context.Background(), 1)
		m.Close() // delivers what was queued, then ends the subscription
		if got := rec.got(); !slices.Equal(got, []engine.ID{1}) {
			t.Fatalf("got %v before close", got)
		}
		if _, err := m.Subscribe(context.Background(), func(engine.ID) {}); !errors.Is(err, redisstate.ErrClosed) {
			t.Fatalf("Subscribe after Close = %v", err)
		}
	})
	t.Run("redis", func(t *testing.T) {
		r := openRedis(t, "atende-test:"+randomHex(6)+":")
		_, cancel := subscribe(t, r.Revocations())
		if err := r.Close(); err != nil { // must not hang on the open subscription
			t.Fatal(err)
		}
		cancel() // after Close: no-op, no hang
		if _, err := r.Revocations().Subscribe(context.Background(), func(engine.ID) {}); err == nil {
			t.Fatal("Subscribe after Close succeeded")
		}
	})
}
