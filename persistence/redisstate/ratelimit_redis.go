package redisstate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"atende/engine"
)

// RateLimiter counts failures per key over a sliding window in Redis, with the
// semantics of persistence/ratelimit.Memory: a key that failed limit times within the
// window is refused until its oldest counted failure leaves the window. Each key is a
// sorted set <prefix>rl:<name>:<key part> of failure times (µs, the caller's clock),
// trimmed to the newest limit entries and expiring one window after the last failure.
type RateLimiter struct {
	// static after RateLimiter
	r      *Redis
	base   string // <prefix>rl:<name>:
	limit  int
	window time.Duration
	clock  engine.Clock
	nonce  string // distinguishes this limiter's members from other nodes'

	seq atomic.Uint64 // member sequence
}

var _ engine.RateLimiter = (*RateLimiter)(nil)

// failScript: ARGV[1] now µs, ARGV[2] cutoff µs (now − window), ARGV[3] limit,
// ARGV[4] member, ARGV[5] window ms.
var failScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
local extra = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if extra > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, extra - 1) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`)

// RateLimiter returns a limiter allowing limit failures per window per key. name
// separates limiters that count different things ("webchat-address", "webchat-connection");
// every node must give the same name, limit and window. clock nil is the system clock.
func (r *Redis) RateLimiter(name string, limit int, window time.Duration, clock engine.Clock) (*RateLimiter, error) {
	if err := checkName("rate limiter", name); err != nil {
		return nil, err
	}
	if limit <= 0 || window < time.Millisecond {
		return nil, errors.New("redisstate: rate limit and window (≥ 1 ms) must be positive")
	}
	if clock == nil {
		clock = engine.SystemClock{}
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &RateLimiter{r: r, base: r.prefix + "rl:" + name + ":", limit: limit, window: window,
		clock: clock, nonce: hex.EncodeToString(b[:])}, nil
}

func (l *RateLimiter) key(k string) string { return l.base + keyPart(k) }

// Allow implements engine.RateLimiter.
func (l *RateLimiter) Allow(ctx context.Context, key string) (bool, error) {
	cutoff := l.clock.Now().Add(-l.window).UnixMicro()
	n, err := l.r.client.ZCount(ctx, l.key(key), "("+strconv.FormatInt(cutoff, 10), "+inf").Result()
	if err != nil {
		return false, fmt.Errorf("rate limit: allow: %w", err)
	}
	return n < int64(l.limit), nil
}

// Fail implements engine.RateLimiter.
func (l *RateLimiter) Fail(ctx context.Context, key string) error {
	now := l.clock.Now()
	member := l.nonce + ":" + strconv.FormatUint(l.seq.Add(1), 10)
	err := failScript.Run(ctx, l.r.client, []string{l.key(key)},
		now.UnixMicro(), now.Add(-l.window).UnixMicro(), l.limit, member, millis(l.window)).Err()
	if err != nil {
		return fmt.Errorf("rate limit: fail: %w", err)
	}
	return nil
}

// Reset implements engine.RateLimiter.
func (l *RateLimiter) Reset(ctx context.Context, key string) error {
	if err := l.r.client.Del(ctx, l.key(key)).Err(); err != nil {
		return fmt.Errorf("rate limit: reset: %w", err)
	}
	return nil
}
