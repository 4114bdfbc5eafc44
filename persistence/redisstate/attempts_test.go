package redisstate_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atende/engine"
)

// reserve calls Reserve and fails the test on an error.
func reserve(t *testing.T, l engine.AttemptLimiter, key string) (string, time.Duration) {
	t.Helper()
	id, wait, err := l.Reserve(context.Background(), key)
	if err != nil {
		t.Fatalf("Reserve(%q): %v", key, err)
	}
	if (id == "") == (wait == 0) {
		t.Fatalf("Reserve(%q) = id %q, wait %v: exactly one of them must be set", key, id, wait)
	}
	return id, wait
}

func TestAttemptLimiter(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b *backend) {
		t.Run("ceiling waits for the oldest to leave", func(t *testing.T) {
			clk := newStepClock()
			l := b.attempts(t, "ceiling", engine.AttemptPolicy{Window: 10 * time.Minute, Limit: 3}, clk)
			for i := range 3 {
				if _, wait := reserve(t, l, "a"); wait != 0 {
					t.Fatalf("attempt %d refused (wait %v)", i+1, wait)
				}
				clk.add(time.Minute)
			}
			// Attempts at 0, 1 and 2 min; now 3 min: the first leaves at 10 min.
			if _, wait := reserve(t, l, "a"); wait != 7*time.Minute {
				t.Fatalf("fourth attempt wait %v, want 7m", wait)
			}
			if _, wait := reserve(t, l, "b"); wait != 0 {
				t.Fatalf("another key refused: %v", wait)
			}
			clk.add(7 * time.Minute)
			if _, wait := reserve(t, l, "a"); wait != 0 {
				t.Fatalf("refused after the oldest left: %v", wait)
			}
		})
		t.Run("progressive delays", func(t *testing.T) {
			clk := newStepClock()
			p := engine.AttemptPolicy{Window: time.Hour, Free: 2, Delay: 10 * time.Second, MaxDelay: 35 * time.Second}
			l := b.attempts(t, "delays", p, clk)
			for i := range 2 {
				if _, wait := reserve(t, l, "k"); wait != 0 {
					t.Fatalf("free attempt %d refused: %v", i+1, wait)
				}
			}
			// After the 2nd: 10 s, then 20 s, then 35 s (capped), and 35 s again.
			for _, want := range []time.Duration{10 * time.Second, 20 * time.Second, 35 * time.Second, 35 * time.Second} {
				if _, wait := reserve(t, l, "k"); wait != want {
					t.Fatalf("wait %v, want %v", wait, want)
				}
				clk.add(want - time.Second)
				if _, wait := reserve(t, l, "k"); wait != time.Second {
					t.Fatalf("1 s early: wait %v, want 1s", wait)
				}
				clk.add(time.Second)
				if _, wait := reserve(t, l, "k"); wait != 0 {
					t.Fatalf("refused once the delay of %v passed: %v", want, wait)
				}
			}
		})
		t.Run("release and reset", func(t *testing.T) {
			clk := newStepClock()
			l := b.attempts(t, "release", engine.AttemptPolicy{Window: time.Hour, Limit: 2}, clk)
			first, _ := reserve(t, l, "r")
			reserve(t, l, "r")
			if _, wait := reserve(t, l, "r"); wait == 0 {
				t.Fatal("third attempt allowed over a limit of 2")
			}
			if err := l.Release(ctx, "r", first); err != nil {
				t.Fatal(err)
			}
			if err := l.Release(ctx, "r", "no-such-id"); err != nil {
				t.Fatal(err)
			}
			if _, wait := reserve(t, l, "r"); wait != 0 {
				t.Fatalf("refused after a release: %v", wait)
			}
			if err := l.Reset(ctx, "r"); err != nil {
				t.Fatal(err)
			}
			reserve(t, l, "r")
			if _, wait := reserve(t, l, "r"); wait != 0 {
				t.Fatalf("refused after a reset: %v", wait)
			}
		})
		t.Run("150 parallel attempts, 5 counted", func(t *testing.T) {
			p := engine.AttemptPolicy{Window: 15 * time.Minute, Free: 5, Delay: 30 * time.Second, MaxDelay: 15 * time.Minute}
			l := b.attempts(t, "parallel", p, nil)
			var ok, refused atomic.Int64
			var wg sync.WaitGroup
			start := make(chan struct{})
			for range 150 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					id, wait, err := l.Reserve(ctx, "victim")
					switch {
					case err != nil:
						t.Error(err)
					case id != "":
						ok.Add(1)
					case wait > 0:
						refused.Add(1)
					}
				}()
			}
			close(start)
			wg.Wait()
			if ok.Load() != 5 || refused.Load() != 145 {
				t.Fatalf("%d attempts counted, %d refused; want 5 and 145", ok.Load(), refused.Load())
			}
		})
		t.Run("keys are bounded per key", func(t *testing.T) {
			clk := newStepClock()
			p := engine.AttemptPolicy{Window: time.Hour, Free: 1, Delay: time.Second, MaxDelay: 4 * time.Second}
			l := b.attempts(t, "bounded", p, clk)
			for i := range 50 {
				if _, wait := reserve(t, l, "x"); wait != 0 {
					t.Fatalf("attempt %d: wait %v", i, wait)
				}
				clk.add(4 * time.Second)
			}
			if b.redis != nil {
				n, err := b.redis.Client().ZCard(ctx, fmt.Sprintf("%sat:bounded:k:x", b.prefix)).Result()
				if err != nil || n != int64(p.Keep()) {
					t.Fatalf("stored %d attempts (err %v), want %d", n, err, p.Keep())
				}
			}
		})
	})
}

func TestAttemptPolicy(t *testing.T) {
	p := engine.AttemptPolicy{Window: time.Hour, Free: 5, Delay: 30 * time.Second, MaxDelay: 15 * time.Minute}
	for n, want := range map[int]time.Duration{0: 0, 4: 0, 5: 30 * time.Second, 6: time.Minute, 9: 8 * time.Minute,
		10: 15 * time.Minute, 500: 15 * time.Minute} {
		if got := p.DelayAfter(n); got != want {
			t.Errorf("DelayAfter(%d) = %v, want %v", n, got, want)
		}
	}
	if k := p.Keep(); k != 11 {
		t.Errorf("Keep = %d, want 11", k)
	}
	for _, bad := range []engine.AttemptPolicy{{}, {Window: time.Hour}, {Window: time.Hour, Limit: -1}, {Limit: 3}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
