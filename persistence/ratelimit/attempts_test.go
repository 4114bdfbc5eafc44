package ratelimit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/ratelimit"
)

// A flood of distinct keys (one per forged address) cannot grow memory without bound:
// the newest keys are kept, expired ones swept.
func TestAttemptsBoundsKeys(t *testing.T) {
	ctx := context.Background()
	clk := &stepClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l, err := ratelimit.NewAttempts(engine.AttemptPolicy{Window: time.Minute, Limit: 1}, 10, clk)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, wait, err := l.Reserve(ctx, fmt.Sprintf("k%d", i)); err != nil || wait != 0 {
			t.Fatalf("key %d: wait %v, %v", i, wait, err)
		}
		clk.add(time.Millisecond)
	}
	if n := l.Len(); n > 10 {
		t.Fatalf("tracking %d keys, bound 10", n)
	}
	if _, wait, _ := l.Reserve(ctx, "k99"); wait == 0 {
		t.Fatal("the newest key was dropped")
	}
	clk.add(time.Minute)
	if _, _, err := l.Reserve(ctx, "fresh"); err != nil {
		t.Fatal(err)
	}
	if n := l.Len(); n != 1 {
		t.Fatalf("expired keys not swept: %d left", n)
	}
}

// A policy that could never refuse, or never forget, is refused.
func TestAttemptsRefusesBadPolicy(t *testing.T) {
	for _, p := range []engine.AttemptPolicy{{}, {Window: time.Minute}, {Window: time.Minute, Limit: -2}, {Window: time.Minute, Delay: -time.Second}} {
		if _, err := ratelimit.NewAttempts(p, 0, nil); err == nil {
			t.Fatalf("NewAttempts(%+v) accepted", p)
		}
	}
}
