package redisstate_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"atende/engine"
)

// Every key the Redis backend writes sits under its prefix and namespace, carries the
// tenant's hash tag where it has a tenant, stays short whatever the caller passed,
// and expires.
func TestRedisKeyLayout(t *testing.T) {
	ctx := context.Background()
	b := redisBackend(t)
	long := strings.Repeat("é", 5000) // 10 kB
	setOnline(t, b.presence, 42, 1, []engine.ID{1}, long, time.Minute)
	setOnline(t, b.presence, 43, 1, []engine.ID{1}, "n1", time.Minute)
	claim(t, b.dedupe, long, time.Minute)
	claim(t, b.dedupe, "short:key", time.Minute)
	l := b.limiter(t, "login", 3, time.Minute, nil)
	fail(t, l, long)
	fail(t, l, "user@example.com")

	shape := regexp.MustCompile(`^` + regexp.QuoteMeta(b.prefix) +
		`(presence:\{\d+\}:(exp|data)|dd:(k:.*|h:[0-9a-f]{64})|rl:login:(k:.*|h:[0-9a-f]{64}))$`)
	keys := scanKeys(t, b.redis, b.prefix)
	if len(keys) != 8 {
		t.Fatalf("keys = %q, want 8", keys)
	}
	for _, k := range keys {
		if !shape.MatchString(k) {
			t.Errorf("key %q does not follow the layout", k)
		}
		if len(k) > 300 {
			t.Errorf("key of %d bytes: long inputs must be hashed", len(k))
		}
		ttl, err := b.redis.Client().PTTL(ctx, k).Result()
		if err != nil || ttl <= 0 || ttl > time.Minute {
			t.Errorf("key %q has TTL %v, %v; want (0, 1m]", k, ttl, err)
		}
	}
	for _, tag := range []string{"presence:{42}:", "presence:{43}:"} {
		n := 0
		for _, k := range keys {
			if strings.Contains(k, tag) {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%d keys with %s, want exp and data", n, tag)
		}
	}
}
