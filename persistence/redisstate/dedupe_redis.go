package redisstate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"atende/engine"
)

// redisDedupe implements engine.DedupeKeys with SET NX PX: one key per claim,
// <prefix>dd:<key part>, expiring with its ttl (PEXPIRE to extend it).
type redisDedupe struct {
	r *Redis // static
}

var _ engine.DedupeKeys = redisDedupe{}

// DedupeKeys returns the Redis-backed engine.DedupeKeys.
func (r *Redis) DedupeKeys() engine.DedupeKeys { return redisDedupe{r: r} }

func (d redisDedupe) key(k string) string { return d.r.prefix + "dd:" + keyPart(k) }

// Claim implements engine.DedupeKeys.
func (d redisDedupe) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		return false, errors.New("redisstate: dedupe ttl must be positive")
	}
	err := d.r.client.SetArgs(ctx, d.key(key), "1", redis.SetArgs{Mode: "NX", TTL: time.Duration(millis(ttl)) * time.Millisecond}).Err()
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, redis.Nil):
		return false, nil
	}
	return false, fmt.Errorf("dedupe: claim: %w", err)
}

// Release implements engine.DedupeKeys.
func (d redisDedupe) Release(ctx context.Context, key string) error {
	if err := d.r.client.Del(ctx, d.key(key)).Err(); err != nil {
		return fmt.Errorf("dedupe: release: %w", err)
	}
	return nil
}

// Extend implements engine.DedupeKeys: PEXPIRE, a no-op on a key that is gone.
func (d redisDedupe) Extend(ctx context.Context, key string, ttl time.Duration) error {
	if ttl <= 0 {
		return errors.New("redisstate: dedupe ttl must be positive")
	}
	if err := d.r.client.PExpire(ctx, d.key(key), time.Duration(millis(ttl))*time.Millisecond).Err(); err != nil {
		return fmt.Errorf("dedupe: extend: %w", err)
	}
	return nil
}
