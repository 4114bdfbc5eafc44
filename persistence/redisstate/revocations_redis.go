package redisstate

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"atende/engine"
)

// redisRevocations implements engine.Revocations with Redis Pub/Sub on the channel
// <prefix>revocations; a message is the user id in decimal. Each subscription holds
// its own connection and one goroutine that calls fn; go-redis re-subscribes after a
// dropped connection, and messages published meanwhile are lost (logged as a gap).
type redisRevocations struct {
	r       *Redis // static
	channel string // static
}

var _ engine.Revocations = redisRevocations{}

// Revocations returns the Redis-backed engine.Revocations.
func (r *Redis) Revocations() engine.Revocations {
	return redisRevocations{r: r, channel: r.prefix + "revocations"}
}

// Publish implements engine.Revocations.
func (v redisRevocations) Publish(ctx context.Context, userID engine.ID) error {
	if err := v.r.client.Publish(ctx, v.channel, strconv.FormatInt(userID, 10)).Err(); err != nil {
		return fmt.Errorf("revocations: publish user %d: %w", userID, err)
	}
	return nil
}

// Subscribe implements engine.Revocations.
func (v redisRevocations) Subscribe(ctx context.Context, fn func(userID engine.ID)) (func(), error) {
	ps := v.r.client.Subscribe(ctx, v.channel)
	// The first reply confirms the subscription: after it, no publish is missed.
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, fmt.Errorf("revocations: subscribe: %w", err)
	}
	v.r.mu.Lock()
	if v.r.closed {
		v.r.mu.Unlock()
		_ = ps.Close()
		return nil, ErrClosed
	}
	v.r.subs[ps] = struct{}{}
	v.r.mu.Unlock()

	log := v.r.log.With().Str("component", "revocations").Logger()
	done := make(chan struct{})
	ch := ps.ChannelWithSubscriptions()
	started := v.r.routines.start(func() {
		defer close(done)
		for m := range ch {
			switch m := m.(type) {
			case *redis.Subscription:
				if m.Kind == "subscribe" {
					log.Warn().Msg("revocation subscription re-established; messages published while it was down are lost")
				}
			case *redis.Message:
				id, err := strconv.ParseInt(m.Payload, 10, 64)
				if err != nil {
					log.Warn().Str("payload", m.Payload).Msg("ignoring malformed revocation")
					continue
				}
				fn(id)
			}
		}
	})
	if !started { // Close began meanwhile and closes ps
		return nil, ErrClosed
	}
	var once sync.Once
	cancel := func() {
		once.Do(func() {
			v.r.mu.Lock()
			delete(v.r.subs, ps)
			v.r.mu.Unlock()
			_ = ps.Close() // closes ch: the goroutine returns
			<-done
		})
	}
	return cancel, nil
}
