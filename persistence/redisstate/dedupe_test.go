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

func claim(t *testing.T, d engine.DedupeKeys, key string, ttl time.Duration) bool {
	t.Helper()
	first, err := d.Claim(context.Background(), key, ttl)
	if err != nil {
		t.Fatalf("Claim(%.40q): %v", key, err)
	}
	return first
}

func TestDedupe(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b *backend) {
		d := b.dedupe
		t.Run("first claim wins, release reopens", func(t *testing.T) {
			if !claim(t, d, "waba:1:wamid.A", time.Minute) {
				t.Fatal("first claim not first")
			}
			if claim(t, d, "waba:1:wamid.A", time.Minute) {
				t.Fatal("second claim first")
			}
			if !claim(t, d, "waba:2:wamid.A", time.Minute) {
				t.Fatal("another tenant's key was taken")
			}
			if err := d.Release(ctx, "waba:1:wamid.A"); err != nil {
				t.Fatal(err)
			}
			if !claim(t, d, "waba:1:wamid.A", time.Minute) {
				t.Fatal("claim after release not first")
			}
			if err := d.Release(ctx, "never-claimed"); err != nil {
				t.Fatalf("release of an unknown key: %v", err)
			}
		})
		t.Run("refused ttl", func(t *testing.T) {
			for _, ttl := range []time.Duration{0, -time.Second} {
				if _, err := d.Claim(ctx, "ttl", ttl); err == nil {
					t.Errorf("ttl %v accepted", ttl)
				}
			}
		})
		t.Run("claims expire", func(t *testing.T) {
			const ttl = 150 * time.Millisecond
			start := time.Now()
			if !claim(t, d, "expiring", ttl) {
				t.Fatal("first claim not first")
			}
			// A refused claim does not extend the first one.
			eventually(t, 5*time.Second, "claim expires", func() bool { return claim(t, d, "expiring", ttl) })
			if el := time.Since(start); el < ttl-20*time.Millisecond {
				t.Fatalf("claim of %v expired after %v", ttl, el)
			}
		})
		t.Run("extend sets the ttl of a live claim", func(t *testing.T) {
			const short = 150 * time.Millisecond
			if !claim(t, d, "extended", short) {
				t.Fatal("first claim not first")
			}
			if err := d.Extend(ctx, "extended", time.Minute); err != nil {
				t.Fatal(err)
			}
			time.Sleep(3 * short)
			if claim(t, d, "extended", short) {
				t.Fatal("extended claim lapsed after its first ttl")
			}
			// Shorter than what it has: the claim lapses sooner.
			if err := d.Extend(ctx, "extended", short); err != nil {
				t.Fatal(err)
			}
			eventually(t, 5*time.Second, "shortened claim expires", func() bool { return claim(t, d, "extended", short) })
			// A key not claimed stays unclaimed.
			if err := d.Extend(ctx, "never-claimed-extend", time.Minute); err != nil {
				t.Fatalf("extend of an unknown key: %v", err)
			}
			if !claim(t, d, "never-claimed-extend", time.Minute) {
				t.Fatal("extend of an unknown key claimed it")
			}
			for _, ttl := range []time.Duration{0, -time.Second} {
				if err := d.Extend(ctx, "extended", ttl); err == nil {
					t.Errorf("extend ttl %v accepted", ttl)
				}
			}
		})
		t.Run("concurrent claims have one winner", func(t *testing.T) {
			const keys, claimers = 20, 16
			for k := range keys {
				key := fmt.Sprintf("race:%d", k)
				var winners atomic.Int32
				var wg sync.WaitGroup
				start := make(chan struct{})
				for range claimers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						first, err := d.Claim(ctx, key, time.Minute)
						if err != nil {
							t.Error(err)
						}
						if first {
							winners.Add(1)
						}
					}()
				}
				close(start)
				wg.Wait()
				if n := winners.Load(); n != 1 {
					t.Fatalf("key %s: %d winners", key, n)
				}
			}
		})
		t.Run("hostile keys are distinct", func(t *testing.T) {
			for i, k := range hostileKeys {
				if !claim(t, d, "hostile|"+k, time.Minute) {
					t.Fatalf("hostile key %d collided with an earlier one", i)
				}
			}
			for i, k := range hostileKeys {
				if claim(t, d, "hostile|"+k, time.Minute) {
					t.Fatalf("hostile key %d claimed twice", i)
				}
			}
		})
	})
}
