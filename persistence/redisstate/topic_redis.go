package redisstate

import (
	"context"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
)

// Topic is a Redis Pub/Sub channel, <prefix>topic:k:<name>, shared by every node: a message
// published by one node reaches every subscriber on every node (the publisher's
// included) at most once, in the order published by one node. Messages published
// while a subscriber's connection is down are lost (logged); users must tolerate
// that — the web chat, for one, falls back on the history of the next welcome.
type Topic struct {
	r       *Redis // static
	channel string // static
}

// Topic returns the topic name; a name longer than 200 bytes is hashed (keyPart).
func (r *Redis) Topic(name string) Topic {
	return Topic{r: r, channel: r.prefix + "topic:" + keyPart(name)}
}

// Publish sends payload to the topic's subscribers; it returns once Redis took it.
func (t Topic) Publish(ctx context.Context, payload []byte) error {
	if err := t.r.client.Publish(ctx, t.channel, payload).Err(); err != nil {
		return fmt.Errorf("topic %s: publish: %w", t.channel, err)
	}
	return nil
}

// Subscribe calls fn with every message published from now on, one at a time, from
// one goroutine, until cancel (or Redis.Close). fn must not block for long: Redis
// drops a subscriber whose output buffer fills.
func (t Topic) Subscribe(ctx context.Context, fn func(payload []byte)) (cancel func(), err error) {
	log := t.r.log.With().Str("component", "topic").Str("channel", t.channel).Logger()
	return t.subscribe(ctx, log, func(payload string) { fn([]byte(payload)) })
}

// subscribe is Subscribe with the payload as go-redis gives it, and log for the
// warnings: the one subscription loop of the package (revocations use it too).
func (t Topic) subscribe(ctx context.Context, log zerolog.Logger, fn func(payload string)) (cancel func(), err error) {
	ps := t.r.client.Subscribe(ctx, t.channel)
	// The first reply confirms the subscription: after it, no publish is missed. It is
	// consumed here, so every confirmation the loop below sees is a re-subscription
	// after a dropped connection.
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, fmt.Errorf("topic %s: subscribe: %w", t.channel, err)
	}
	t.r.mu.Lock()
	if t.r.closed {
		t.r.mu.Unlock()
		_ = ps.Close()
		return nil, ErrClosed
	}
	t.r.subs[ps] = struct{}{}
	t.r.mu.Unlock()

	done := make(chan struct{})
	ch := ps.ChannelWithSubscriptions(redis.WithChannelSize(1024))
	started := t.r.routines.Go(func() {
		defer close(done)
		for m := range ch {
			switch m := m.(type) {
			case *redis.Subscription:
				if m.Kind == "subscribe" {
					log.Warn().Msg("subscription re-established; messages published while it was down are lost")
				}
			case *redis.Message:
				fn(m.Payload)
			}
		}
	})
	if !started { // Close began meanwhile and closes ps
		return nil, ErrClosed
	}
	var once sync.Once
	cancel = func() {
		once.Do(func() {
			t.r.mu.Lock()
			delete(t.r.subs, ps)
			t.r.mu.Unlock()
			_ = ps.Close() // closes ch: the goroutine returns
			<-done
		})
	}
	return cancel, nil
}
