package redisstate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"atende/engine"
)

// AttemptLimiter is engine.AttemptLimiter in Redis, shared by every node: each key is
// a sorted set <prefix>at:<name>:<key part> of attempt ids scored by their time (µs,
// the caller's clock), expiring one window after the latest attempt. Reserve runs
// the policy (engine.AttemptPolicy.Wait, mirrored in reserveScript) and the count in
// one script, so parallel attempts from any node are judged one after another.
type AttemptLimiter struct {
	// static after AttemptLimiter
	r      *Redis
	base   string // <prefix>at:<name>:
	policy engine.AttemptPolicy
	keep   int
	clock  engine.Clock
	nonce  string // distinguishes this limiter's ids from other nodes'

	seq atomic.Uint64 // id sequence
}

var _ engine.AttemptLimiter = (*AttemptLimiter)(nil)

// reserveScript is engine.AttemptPolicy.Wait followed by the count. ARGV: [1] now µs,
// [2] window µs, [3] limit, [4] free, [5] delay µs, [6] max delay µs, [7] keep,
// [8] id. Answers 0 when counted, else the wait in µs.
var reserveScript = redis.NewScript(`
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local limit, free = tonumber(ARGV[3]), tonumber(ARGV[4])
local delay, maxd, keep = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
local wait = 0
if limit > 0 and n >= limit then
  local e = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
  wait = math.max(wait, tonumber(e[2]) + window - now)
end
if delay > 0 and n > 0 and n >= free then
  local d = maxd
  if n - free < 40 then d = math.min(maxd, delay * 2 ^ (n - free)) end
  local e = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  wait = math.max(wait, tonumber(e[2]) + d - now)
end
if wait > 0 then return math.ceil(wait) end
redis.call('ZADD', KEYS[1], now, ARGV[8])
local extra = n + 1 - keep
if extra > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, extra - 1) end
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
return 0
`)

// AttemptLimiter returns a limiter applying policy. name separates limiters that
// count different things ("login-pair", "login-address"); every node must give the
// same name and policy. clock nil is the system clock.
func (r *Redis) AttemptLimiter(name string, policy engine.AttemptPolicy, clock engine.Clock) (*AttemptLimiter, error) {
	if err := checkName("attempt limiter", name); err != nil {
		return nil, err
	}
	if err := policy.Validate(); err != nil {
		return nil, fmt.Errorf("redisstate: %w", err)
	}
	if clock == nil {
		clock = engine.SystemClock{}
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &AttemptLimiter{r: r, base: r.prefix + "at:" + name + ":", policy: policy, keep: policy.Keep(),
		clock: clock, nonce: hex.EncodeToString(b[:])}, nil
}

func (l *AttemptLimiter) key(k string) string { return l.base + keyPart(k) }

// Reserve implements engine.AttemptLimiter.
func (l *AttemptLimiter) Reserve(ctx context.Context, key string) (string, time.Duration, error) {
	now := l.clock.Now()
	id := l.nonce + ":" + strconv.FormatUint(l.seq.Add(1), 10)
	maxDelay := l.policy.MaxDelay
	if maxDelay == 0 {
		maxDelay = l.policy.Window
	}
	wait, err := reserveScript.Run(ctx, l.r.client, []string{l.key(key)},
		now.UnixMicro(), l.policy.Window.Microseconds(), l.policy.Limit, l.policy.Free,
		l.policy.Delay.Microseconds(), maxDelay.Microseconds(), l.keep, id).Int64()
	if err != nil {
		return "", 0, fmt.Errorf("attempt limit: reserve: %w", err)
	}
	if wait > 0 {
		return "", time.Duration(wait) * time.Microsecond, nil
	}
	return id, 0, nil
}

// Release implements engine.AttemptLimiter.
func (l *AttemptLimiter) Release(ctx context.Context, key, id string) error {
	if err := l.r.client.ZRem(ctx, l.key(key), id).Err(); err != nil {
		return fmt.Errorf("attempt limit: release: %w", err)
	}
	return nil
}

// Reset implements engine.AttemptLimiter.
func (l *AttemptLimiter) Reset(ctx context.Context, key string) error {
	if err := l.r.client.Del(ctx, l.key(key)).Err(); err != nil {
		return fmt.Errorf("attempt limit: reset: %w", err)
	}
	return nil
}
