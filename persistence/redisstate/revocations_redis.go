package redisstate

import (
	"context"
	"fmt"
	"strconv"

	"atende/engine"
)

// redisRevocations implements engine.Revocations with Redis Pub/Sub on the channel
// <prefix>revocations; a message is the user id in decimal, followed for a logout by
// a space and the session id. Each subscription holds
// its own connection and one goroutine that calls fn; go-redis re-subscribes after a
// dropped connection, and messages published meanwhile are lost (logged as a gap).
type redisRevocations struct {
	r       *Redis // static
	channel string // static
}

var _ SessionRevocations = redisRevocations{}

// Revocations returns the Redis-backed engine.Revocations, which carries logouts too.
func (r *Redis) Revocations() SessionRevocations {
	return redisRevocations{r: r, channel: r.prefix + "revocations"}
}

// Publish implements engine.Revocations.
func (v redisRevocations) Publish(ctx context.Context, userID engine.ID) error {
	if err := v.r.client.Publish(ctx, v.channel, strconv.FormatInt(userID, 10)).Err(); err != nil {
		return fmt.Errorf("revocations: publish user %d: %w", userID, err)
	}
	return nil
}

// EndSession implements SessionRevocations.
func (v redisRevocations) EndSession(ctx context.Context, userID engine.ID, session string) error {
	if err := checkSession(session); err != nil {
		return err
	}
	msg := Revocation{UserID: userID, Session: session}.encode()
	if err := v.r.client.Publish(ctx, v.channel, msg).Err(); err != nil {
		return fmt.Errorf("revocations: publish logout of user %d: %w", userID, err)
	}
	return nil
}

// Subscribe implements engine.Revocations.
func (v redisRevocations) Subscribe(ctx context.Context, fn func(userID engine.ID)) (func(), error) {
	return v.SubscribeAll(ctx, onlyUsers(fn))
}

// SubscribeAll implements SessionRevocations: the topic subscription loop on the
// revocations channel, decoding each message.
func (v redisRevocations) SubscribeAll(ctx context.Context, fn func(Revocation)) (func(), error) {
	log := v.r.log.With().Str("component", "revocations").Logger()
	return Topic(v).subscribe(ctx, log, func(payload string) {
		r, err := decodeRevocation(payload)
		if err != nil {
			log.Warn().Str("payload", payload).Msg("ignoring malformed revocation")
			return
		}
		fn(r)
	})
}
