package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"testing"
	"time"

	"atende/node"
)

// TestWABAWebhookDedupe posts one signed delivery several times, one after another
// and then at once, on a single node (keys in memory) and with the keys in Redis: the
// message is stored once, and the re-deliveries were answered 200 by the fast path
// without reaching the connection actor (atende_webhook_duplicates_total).
func TestWABAWebhookDedupe(t *testing.T) {
	t.Run("memory", func(t *testing.T) { testWABAWebhookDedupe(t, "") })
	t.Run("redis", func(t *testing.T) {
		url := os.Getenv("TEST_REDIS_URL")
		if url == "" {
			url = "redis://127.0.0.1:6379/0"
		}
		testWABAWebhookDedupe(t, url)
	})
}

func testWABAWebhookDedupe(t *testing.T, redisURL string) {
	var prefix string
	n := newWABANode(t, "EAAG-dedupe", "106540352242923", "1023", "+55 65 3333-0001", func(cfg *node.Config) {
		if redisURL != "" {
			var b [6]byte
			_, _ = rand.Read(b[:])
			prefix = "atende-test:" + hex.EncodeToString(b[:]) + ":"
			cfg.RedisURL, cfg.RedisPrefix = redisURL, prefix
		}
	})
	ta := n.ta
	if redisURL != "" {
		t.Cleanup(func() {
			ctx := context.Background()
			c := ta.app.Redis().Client()
			if keys, err := c.Keys(ctx, prefix+"*").Result(); err == nil && len(keys) > 0 {
				c.Del(ctx, keys...)
			}
		})
	}
	const customer = "5565988886666"
	hook := func(body string) int { return n.hook(t, body, true) }
	msg := func(id, text string) string { return n.text(customer, "Maria WABA", id, text) }
	dupKey := `atende_webhook_duplicates_total{provider="waba"}`
	for i := range 3 {
		if s := hook(msg("wamid.DUP1", "Olá")); s != 200 {
			t.Fatalf("delivery %d: %d", i, s)
		}
	}
	if n := metrics(ta.base)[dupKey]; n != 2 {
		t.Fatalf("%s = %v after 3 deliveries, want 2", dupKey, n)
	}
	// A burst at once: exactly one reaches the actor. A delivery that arrives while it
	// is handled is told to come again (5xx), never 200: were the first to fail, a 200
	// would have lost the message. The provider's retry then finds it handled.
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		retry int
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch s := hook(msg("wamid.DUP2", "segunda")); {
			case s == 200:
			case s >= 500:
				mu.Lock()
				retry++
				mu.Unlock()
			default:
				t.Errorf("burst delivery: %d", s)
			}
		}()
	}
	wg.Wait()
	for i := range retry {
		if s := hook(msg("wamid.DUP2", "segunda")); s != 200 {
			t.Fatalf("provider's retry %d: %d", i, s)
		}
	}
	// Of the 4 burst deliveries (each answered 200 at last) one was handled.
	if n := metrics(ta.base)[dupKey]; n != 5 {
		t.Fatalf("%s = %v after the burst and %d retries, want 5", dupKey, n, retry)
	}
	msgs := n.waitMessage(t, customer, "wamid.DUP2")
	count := map[string]int{}
	for _, m := range msgs {
		count[m.ProviderID]++
	}
	if count["wamid.DUP1"] != 1 || count["wamid.DUP2"] != 1 {
		t.Fatalf("stored %v", count)
	}
	if n := metrics(ta.base)[`atende_webhook_dedupe_errors_total{provider="waba"}`]; n != 0 {
		t.Fatalf("claim errors %v", n)
	}
}

func TestWABAWebhookDedupeTTLConfig(t *testing.T) {
	c, err := parseConfig(nil, envOf(nil))
	if err != nil || c.WebhookDedupeTTL != time.Hour {
		t.Fatalf("default %v (%v), want 1h", c.WebhookDedupeTTL, err)
	}
	c, err = parseConfig([]string{"--webhook-dedupe-ttl", "10m"}, envOf(map[string]string{"WEBHOOK_DEDUPE_TTL": "2h"}))
	if err != nil || c.WebhookDedupeTTL != 10*time.Minute {
		t.Fatalf("flag over environment: %v (%v)", c.WebhookDedupeTTL, err)
	}
	for _, v := range []string{"0s", "-1m", "soon"} {
		if _, err := parseConfig(nil, envOf(map[string]string{"WEBHOOK_DEDUPE_TTL": v})); err == nil {
			t.Errorf("WEBHOOK_DEDUPE_TTL=%q accepted", v)
		}
	}
}
