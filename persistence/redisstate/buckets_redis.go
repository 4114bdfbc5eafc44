package redisstate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"atende/engine"
)

// TokenBuckets is a token bucket per key in Redis, shared by every node: it holds up
// to burst tokens, refilled at perSecond, and each allowed event takes one — the
// semantics of transport/netlimit.Buckets, which is the in-process one. Each key is
// a hash <prefix>tb:<name>:<key part> of its tokens and last refill (µs, the
// caller's clock), expiring once a full bucket would be forgotten anyway. The web
// chat counts new visitors per client address and per connection with it, so that a
// cluster holds one limit, not one per node.
type TokenBuckets struct {
	// static after TokenBuckets
	r         *Redis
	base      string // <prefix>tb:<name>:
	perSecond float64
	burst     int
	ttl       time.Duration
	clock     engine.Clock
}

// takeScript: ARGV[1] now µs, ARGV[2] tokens per second, ARGV[3] burst, ARGV[4] TTL
// ms. Returns {1, 0} when a token was taken, else {0, µs until one is there}.
// Numbers are kept as "%.17g" text so that a refill time survives the round trip.
var takeScript = redis.NewScript(`
local now, rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 't', 'l')
local tokens, last = tonumber(b[1]), tonumber(b[2])
if tokens == nil or last == nil then tokens, last = burst, now end
if now > last then
  tokens = math.min(burst, tokens + (now - last) / 1e6 * rate)
  last = now
end
local ok, wait = 0, 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 else wait = math.ceil((1 - tokens) / rate * 1e6) end
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'l', string.format('%.17g', last))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {ok, wait}
`)

// TokenBuckets returns the buckets named name (every node must give the same name,
// rate and burst); clock nil is the system clock.
func (r *Redis) TokenBuckets(name string, perSecond float64, burst int, clock engine.Clock) (*TokenBuckets, error) {
	if err := checkName("token buckets", name); err != nil {
		return nil, err
	}
	if perSecond <= 0 || burst < 1 {
		return nil, errors.New("redisstate: token buckets need a positive rate and a burst of at least 1")
	}
	if clock == nil {
		clock = engine.SystemClock{}
	}
	// A bucket left alone refills in burst/perSecond: after that, forgetting it loses nothing.
	ttl := time.Duration(float64(burst)/perSecond*float64(time.Second)) + time.Second
	return &TokenBuckets{r: r, base: r.prefix + "tb:" + name + ":", perSecond: perSecond, burst: burst, ttl: ttl, clock: clock}, nil
}

// Take takes a token from key's bucket. When there is none it answers false and how
// long until there is one.
func (b *TokenBuckets) Take(ctx context.Context, key string) (bool, time.Duration, error) {
	now := b.clock.Now()
	res, err := takeScript.Run(ctx, b.r.client, []string{b.base + keyPart(key)},
		now.UnixMicro(), strconv.FormatFloat(b.perSecond, 'g', -1, 64), b.burst, millis(b.ttl)).Int64Slice()
	if err != nil {
		return false, 0, fmt.Errorf("token bucket: take: %w", err)
	}
	if len(res) != 2 {
		return false, 0, fmt.Errorf("token bucket: take: answer %v", res)
	}
	return res[0] == 1, time.Duration(res[1]) * time.Microsecond, nil
}
