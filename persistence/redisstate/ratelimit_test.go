package redisstate_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"atende/engine"
)

func allow(t *testing.T, l engine.RateLimiter, key string, want bool) {
	t.Helper()
	ok, err := l.Allow(context.Background(), key)
	if err != nil || ok != want {
		t.Fatalf("Allow(%.40q) = %v, %v; want %v", key, ok, err, want)
	}
}

func fail(t *testing.T, l engine.RateLimiter, key string) {
	t.Helper()
	if err := l.Fail(context.Background(), key); err != nil {
		t.Fatalf("Fail(%.40q): %v", key, err)
	}
}

// The Redis limiter must answer exactly as persistence/ratelimit.Memory does.
func TestRateLimiter(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b *backend) {
		t.Run("sliding window", func(t *testing.T) {
			clk := newStepClock()
			l := b.limiter(t, "login", 3, 15*time.Minute, clk)
			for i := range 3 {
				allow(t, l, "a", true)
				fail(t, l, "a")
				clk.add(time.Duration(i+1) * time.Minute) // failures at 0, 1, 3 minutes
			}
			allow(t, l, "a", false)
			allow(t, l, "b", true) // keys are independent
			clk.add(15*time.Minute - 6*time.Minute - time.Second)
			allow(t, l, "a", false) // 14:59 after the first failure
			clk.add(time.Second)
			allow(t, l, "a", true) // the first failure left the window
			fail(t, l, "a")
			allow(t, l, "a", false)
			if err := l.Reset(ctx, "a"); err != nil {
				t.Fatal(err)
			}
			allow(t, l, "a", true)
			clk.add(time.Hour) // everything left the window
			fail(t, l, "b")
			allow(t, l, "b", true)
		})
		t.Run("a burst leaves the window", func(t *testing.T) {
			clk := newStepClock()
			l := b.limiter(t, "trim", 2, time.Minute, clk)
			for range 10 { // a burst in one instant
				fail(t, l, "k")
			}
			clk.add(30 * time.Second)
			fail(t, l, "k")
			clk.add(30 * time.Second) // the burst leaves the window, the last one stays
			allow(t, l, "k", true)
			fail(t, l, "k")
			allow(t, l, "k", false)
		})
		t.Run("names count separately", func(t *testing.T) {
			clk := newStepClock()
			account := b.limiter(t, "account", 1, time.Minute, clk)
			address := b.limiter(t, "address", 1, time.Minute, clk)
			fail(t, account, "x")
			allow(t, account, "x", false)
			allow(t, address, "x", true)
		})
		t.Run("hostile keys are distinct", func(t *testing.T) {
			l := b.limiter(t, "hostile", 1, time.Minute, newStepClock())
			for i, k := range hostileKeys {
				allow(t, l, k, true)
				fail(t, l, k)
				allow(t, l, k, false)
				if i+1 < len(hostileKeys) {
					allow(t, l, hostileKeys[i+1], true)
				}
			}
		})
		t.Run("window passes in real time", func(t *testing.T) {
			l := b.limiter(t, "realtime", 2, 200*time.Millisecond, nil)
			fail(t, l, "r")
			fail(t, l, "r")
			start := time.Now()
			allow(t, l, "r", false)
			eventually(t, 5*time.Second, "window passes", func() bool {
				ok, err := l.Allow(ctx, "r")
				return err == nil && ok
			})
			if el := time.Since(start); el > 3*time.Second {
				t.Fatalf("window of 200 ms took %v", el)
			}
		})
		t.Run("concurrent failures are all counted", func(t *testing.T) {
			l := b.limiter(t, "concurrent", 200, time.Hour, nil)
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n := 25
					if g == 0 {
						n = 24 // "under" gets 199 failures in all
					}
					for range 25 {
						_ = l.Fail(ctx, "over")
					}
					for range n {
						_ = l.Fail(ctx, "under")
					}
				}()
			}
			wg.Wait()
			allow(t, l, "over", false) // 200 failures: none lost
			allow(t, l, "under", true) // 199: not one too many
		})
	})
}

func TestRedisRateLimiterRefusesBadConfig(t *testing.T) {
	r := openRedis(t, "atende-test:"+randomHex(6)+":")
	for _, c := range []struct {
		name   string
		limit  int
		window time.Duration
	}{
		{"ok", 0, time.Minute}, {"ok", 1, 0}, {"ok", -1, time.Minute},
		{"", 1, time.Minute}, {"a:b", 1, time.Minute}, {"a b", 1, time.Minute}, {"{a}", 1, time.Minute},
	} {
		t.Run(fmt.Sprintf("%q/%d/%v", c.name, c.limit, c.window), func(t *testing.T) {
			if _, err := r.RateLimiter(c.name, c.limit, c.window, nil); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
