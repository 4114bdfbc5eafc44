package ratelimit_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/ratelimit"
)

// stepClock is a settable clock.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *stepClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func mustAllow(t *testing.T, l engine.RateLimiter, key string, want bool) {
	t.Helper()
	ok, err := l.Allow(context.Background(), key)
	if err != nil || ok != want {
		t.Fatalf("Allow(%q) = %v, %v; want %v", key, ok, err, want)
	}
}

func TestMemorySlidingWindow(t *testing.T) {
	ctx := context.Background()
	clk := &stepClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l, err := ratelimit.New(3, 15*time.Minute, 0, clk)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		mustAllow(t, l, "a", true)
		_ = l.Fail(ctx, "a")
		clk.add(time.Duration(i+1) * time.Minute) // failures at 0, 1, 3 minutes
	}
	mustAllow(t, l, "a", false)
	mustAllow(t, l, "b", true) // keys are independent
	clk.add(15*time.Minute - 6*time.Minute - time.Second)
	mustAllow(t, l, "a", false) // 14:59 after the first failure
	clk.add(time.Second)
	mustAllow(t, l, "a", true) // the first failure left the window
	_ = l.Fail(ctx, "a")
	mustAllow(t, l, "a", false)
	if err := l.Reset(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	mustAllow(t, l, "a", true)
}

func TestMemoryBoundsKeys(t *testing.T) {
	ctx := context.Background()
	clk := &stepClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l, _ := ratelimit.New(1, time.Minute, 10, clk)
	for i := range 100 {
		_ = l.Fail(ctx, fmt.Sprintf("k%d", i))
		clk.add(time.Millisecond)
	}
	if n := l.Len(); n > 10 {
		t.Fatalf("tracking %d keys, bound 10", n)
	}
	mustAllow(t, l, "k99", false) // the newest key is kept
	clk.add(time.Minute)
	_ = l.Fail(ctx, "fresh")
	if n := l.Len(); n != 1 {
		t.Fatalf("expired keys not swept: %d", n)
	}
}

func TestMemoryRefusesBadConfig(t *testing.T) {
	for _, c := range []struct {
		limit  int
		window time.Duration
	}{{0, time.Minute}, {1, 0}, {-1, time.Minute}} {
		if _, err := ratelimit.New(c.limit, c.window, 0, nil); err == nil {
			t.Fatalf("New(%d, %v) accepted", c.limit, c.window)
		}
	}
}

func TestMemoryConcurrent(t *testing.T) {
	ctx := context.Background()
	l, _ := ratelimit.New(1000, time.Hour, 0, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_ = l.Fail(ctx, "shared")
				_, _ = l.Allow(ctx, fmt.Sprintf("own%d", g))
			}
		}()
	}
	wg.Wait()
	mustAllow(t, l, "shared", true) // 800 < 1000
}
