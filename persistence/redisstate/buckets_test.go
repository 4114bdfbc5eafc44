package redisstate_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atende/transport/netlimit"
)

// taker is what both token bucket implementations offer.
type taker interface {
	Take(ctx context.Context, key string) (bool, time.Duration, error)
}

// memoryBuckets adapts netlimit.Buckets, the in-process implementation.
type memoryBuckets struct{ b *netlimit.Buckets }

func (m memoryBuckets) Take(_ context.Context, key string) (bool, time.Duration, error) {
	ok, wait := m.b.Take(key)
	return ok, wait, nil
}

// The Redis buckets answer as netlimit.Buckets does, step for step.
func TestTokenBuckets(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"memory", "redis"} {
		t.Run(name, func(t *testing.T) {
			clk := newStepClock()
			var l taker
			if name == "memory" {
				l = memoryBuckets{netlimit.NewBuckets(netlimit.PerMinute(6, 3), clk.Now)}
			} else {
				prefix := "atende-test:" + randomHex(6) + ":"
				r := openRedis(t, prefix)
				t.Cleanup(func() { deleteKeys(t, r, prefix) })
				b, err := r.TokenBuckets("visitors", 0.1, 3, clk)
				if err != nil {
					t.Fatal(err)
				}
				l = b
			}
			take := func(key string, want bool, wantWait time.Duration) {
				t.Helper()
				ok, wait, err := l.Take(ctx, key)
				if err != nil || ok != want || (wait-wantWait).Abs() > time.Millisecond {
					t.Fatalf("Take(%s) = %v, %v, %v; want %v, %v", key, ok, wait, err, want, wantWait)
				}
			}
			for range 3 {
				take("a", true, 0)
			}
			take("a", false, 10*time.Second) // one token every 10 s
			take("b", true, 0)               // keys are independent
			clk.add(4 * time.Second)
			take("a", false, 6*time.Second)
			clk.add(6 * time.Second)
			take("a", true, 0)
			take("a", false, 10*time.Second)
			clk.add(time.Hour) // full again, never above the burst
			for range 3 {
				take("a", true, 0)
			}
			take("a", false, 10*time.Second)
		})
	}
}

// Concurrent takes from many goroutines (nodes) never take more than the bucket holds.
func TestTokenBucketsConcurrent(t *testing.T) {
	prefix := "atende-test:" + randomHex(6) + ":"
	a, b := openRedis(t, prefix), openRedis(t, prefix)
	t.Cleanup(func() { deleteKeys(t, a, prefix) })
	clk := newStepClock() // the clock stands still: no refill during the race
	la, err := a.TokenBuckets("race", 0.001, 10, clk)
	if err != nil {
		t.Fatal(err)
	}
	lb, _ := b.TokenBuckets("race", 0.001, 10, clk)
	var taken atomic.Int64
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := la
			if i%2 == 1 {
				l = lb
			}
			ok, _, err := l.Take(context.Background(), "203.0.113.9")
			if err != nil {
				t.Error(err)
			}
			if ok {
				taken.Add(1)
			}
		}()
	}
	wg.Wait()
	if got := taken.Load(); got != 10 {
		t.Fatalf("100 concurrent takes from two nodes took %d tokens, want the burst of 10", got)
	}
}
