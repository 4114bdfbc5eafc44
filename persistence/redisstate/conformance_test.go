package redisstate_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/ratelimit"
	"atende/persistence/redisstate"
)

// The conformance suite: every behaviour test takes a *backend and runs once per
// implementation (memory and a real Redis), through eachBackend.

// backend is one implementation of the shared-state interfaces, fresh per test.
type backend struct {
	name     string
	presence engine.Presence
	dedupe   engine.DedupeKeys
	// nodeA and nodeB are two nodes of one deployment: what one publishes, both get.
	nodeA, nodeB engine.Revocations
	// elsewhere belongs to another deployment (another Redis prefix, another process).
	elsewhere engine.Revocations
	// limiter makes a rate limiter; limiters of different names count separately.
	limiter func(t *testing.T, name string, limit int, window time.Duration, clock engine.Clock) engine.RateLimiter
	// attempts makes an attempt limiter; limiters of different names count separately.
	attempts func(t *testing.T, name string, policy engine.AttemptPolicy, clock engine.Clock) engine.AttemptLimiter
	// redis is the connection of the Redis backend (nil for memory), for key checks.
	redis  *redisstate.Redis
	prefix string
}

// redisURL is where the suite finds Redis; an unreachable server fails the suite.
func redisURL() string {
	if u := os.Getenv("TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// eachBackend runs body as a subtest per implementation.
func eachBackend(t *testing.T, body func(t *testing.T, b *backend)) {
	t.Helper()
	t.Run("memory", func(t *testing.T) { body(t, memoryBackend(t)) })
	t.Run("redis", func(t *testing.T) { body(t, redisBackend(t)) })
}

func memoryBackend(t *testing.T) *backend {
	rev := redisstate.NewMemoryRevocations(zerolog.Nop())
	other := redisstate.NewMemoryRevocations(zerolog.Nop())
	t.Cleanup(rev.Close)
	t.Cleanup(other.Close)
	return &backend{
		name:      "memory",
		presence:  redisstate.NewMemoryPresence(nil),
		dedupe:    redisstate.NewMemoryDedupe(nil),
		nodeA:     rev,
		nodeB:     rev, // one process: both "nodes" share the broadcaster
		elsewhere: other,
		limiter: func(t *testing.T, _ string, limit int, window time.Duration, clock engine.Clock) engine.RateLimiter {
			l, err := ratelimit.New(limit, window, 0, clock)
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		attempts: func(t *testing.T, _ string, policy engine.AttemptPolicy, clock engine.Clock) engine.AttemptLimiter {
			l, err := ratelimit.NewAttempts(policy, 0, clock)
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	}
}

func redisBackend(t *testing.T) *backend {
	prefix := "atende-test:" + randomHex(6) + ":"
	otherPrefix := "atende-test:" + randomHex(6) + ":"
	a := openRedis(t, prefix)
	b := openRedis(t, prefix)
	c := openRedis(t, otherPrefix)
	t.Cleanup(func() { deleteKeys(t, a, prefix); deleteKeys(t, a, otherPrefix) })
	return &backend{
		name:      "redis",
		presence:  a.Presence(),
		dedupe:    a.DedupeKeys(),
		nodeA:     a.Revocations(),
		nodeB:     b.Revocations(),
		elsewhere: c.Revocations(),
		limiter: func(t *testing.T, name string, limit int, window time.Duration, clock engine.Clock) engine.RateLimiter {
			l, err := a.RateLimiter(name, limit, window, clock)
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		attempts: func(t *testing.T, name string, policy engine.AttemptPolicy, clock engine.Clock) engine.AttemptLimiter {
			l, err := a.AttemptLimiter(name, policy, clock)
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		redis:  a,
		prefix: prefix,
	}
}

func openRedis(t *testing.T, prefix string) *redisstate.Redis {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := redisstate.New(ctx, redisstate.Config{URL: redisURL(), Prefix: prefix, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatalf("Redis at %s is required (set TEST_REDIS_URL): %v", redisURL(), err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// deleteKeys removes every key under prefix.
func deleteKeys(t *testing.T, r *redisstate.Redis, prefix string) {
	ctx := context.Background()
	keys := scanKeys(t, r, prefix)
	if len(keys) > 0 {
		if err := r.Client().Del(ctx, keys...).Err(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}
}

func scanKeys(t *testing.T, r *redisstate.Redis, prefix string) []string {
	t.Helper()
	var keys []string
	it := r.Client().Scan(context.Background(), 0, prefix+"*", 1000).Iterator()
	for it.Next(context.Background()) {
		keys = append(keys, it.Val())
	}
	if err := it.Err(); err != nil {
		t.Fatalf("scan %s*: %v", prefix, err)
	}
	return keys
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// eventually polls cond every 10 ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hostileKeys are caller-given strings that must round-trip and stay distinct.
var hostileKeys = []string{
	"",
	" ",
	"a b",
	"a:b",
	"a:b:",
	":",
	"{1}",
	"k:a",
	"h:" + strings.Repeat("0", 64),
	"ação ✓ 日本語 🙂",
	"line\nbreak\ttab",
	"nul\x00byte",
	"*?[]\\",
	strings.Repeat("x", 10000),
	strings.Repeat("x", 10000) + "y",
	strings.Repeat("x", 200),
	strings.Repeat("x", 201),
}

// stepClock is a settable clock.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func newStepClock() *stepClock {
	// Start at the real time: Redis keys expire by the server clock, so a fake clock
	// far in the past would make them outlive their windows; ahead is fine.
	return &stepClock{now: time.Now().Truncate(time.Millisecond)}
}

func (c *stepClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *stepClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
