package redisstate

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
)

// Defaults of InboundDedupe.
const (
	// DefaultInboundDedupeTTL is how long a handled inbound message's key absorbs
	// re-deliveries. Providers re-deliver for hours (WhatsApp Cloud API: days); the
	// durable de-duplication stays the ticket actor's, the key only absorbs the bursts
	// (a retry storm, the same message delivered twice at once) before they cost an
	// actor round trip. A re-delivery after the key lapsed reaches the actor, which
	// stores nothing new.
	DefaultInboundDedupeTTL = time.Hour
	// DefaultInboundPendingTTL is how long the key of a message still being handled
	// lives: longer than a web-hook delivery may take (the adapters give one 20 s), so
	// that a crash mid-way (no Release) absorbs re-deliveries for this long only.
	DefaultInboundPendingTTL = time.Minute
	defaultDedupeCallTimeout = time.Second
	dedupeLogEvery           = time.Minute
)

// InboundDedupe is the web-hook de-duplication fast path: it decorates the sinks the
// web-hook handlers hand inbound messages to (Sink), so that a provider's re-delivery
// of a message already handled is answered at once, without a call to the connection
// actor. Keys are engine.DedupeKeys (Redis in a cluster, so a re-delivery landing on
// another node is absorbed too; MemoryDedupe on a single node).
//
// An inbound message with a ProviderID uses two keys: its done key
// "inbound:<connectionID>:k:<providerID>" (a provider id longer than 200 bytes is
// hashed: "inbound:<connectionID>:h:<sha256>") and a busy key, "busy:" + the done key, held
// while one delivery of it is being handled:
//   - busy taken: another delivery of the same message is being handled right now (or
//     its node died doing so, within PendingTTL): answered engine.ErrUnavailable, so
//     the web-hook answers 500 and the provider delivers again later. Never 200: if
//     that other delivery fails, this one must not have been taken for it;
//   - busy claimed, done key present: a duplicate of a message handled within TTL:
//     answered nil without calling the inner sink (counted in Stats.Duplicates);
//   - busy claimed, done key claimed (for PendingTTL only): the inner sink is called;
//     on success the done key is Extended to TTL, on error it is Released and the
//     error returned (the web-hook answers 500, the provider retries); then busy is
//     Released. A new message so costs four calls: claim busy, claim done, extend
//     done, release busy. A node that dies mid-way leaves both keys to lapse after PendingTTL:
//     re-deliveries meanwhile are answered 500, later ones handled — none is lost;
//   - a Claim that failed (Redis unreachable): logged at most once a minute, and the
//     inner sink is called: ingestion does not depend on Redis, and the ticket actor
//     de-duplicates durably whatever happens here.
//
// Messages without a ProviderID (a revocation may have none), receipts and status
// changes pass through untouched. Safe for concurrent use once configured.
type InboundDedupe struct {
	// Configuration: set before the first Sink, static afterwards.

	// Keys holds the claims; required.
	Keys engine.DedupeKeys
	// TTL is how long a handled message's key lives; DefaultInboundDedupeTTL when 0.
	TTL time.Duration
	// PendingTTL is how long the key of a message being handled lives;
	// DefaultInboundPendingTTL when 0.
	PendingTTL time.Duration
	// CallTimeout bounds each Claim / Extend / Release (a new message takes two claims,
	// an extend and a release), so a hanging Redis delays a delivery by a few of these
	// at most; 1 s when 0.
	CallTimeout time.Duration
	// Logger receives the (rate-limited) warnings; the zero Logger discards them.
	Logger zerolog.Logger
	// Clock paces the warnings; nil is the system clock.
	Clock engine.Clock

	duplicates, busy, released, claimErrors atomic.Uint64 // Stats

	mu         sync.Mutex // guards lastLog, suppressed
	lastLog    time.Time
	suppressed uint64
}

// InboundDedupeStats counts what an InboundDedupe did since it was made.
type InboundDedupeStats struct {
	Duplicates  uint64 // deliveries answered without calling the inner sink
	Busy        uint64 // deliveries refused (to be delivered again) while another was handled
	Released    uint64 // claims released because the inner sink failed
	ClaimErrors uint64 // claims that failed (passed through to the inner sink)
}

// Stats returns the counters.
func (d *InboundDedupe) Stats() InboundDedupeStats {
	return InboundDedupeStats{Duplicates: d.duplicates.Load(), Busy: d.busy.Load(), Released: d.released.Load(),
		ClaimErrors: d.claimErrors.Load()}
}

// Sink decorates next, the sink of connection connectionID.
func (d *InboundDedupe) Sink(connectionID engine.ID, next engine.ChannelSink) engine.ChannelSink {
	return dedupeSink{d: d, conn: connectionID, next: next}
}

// InboundKey is the de-duplication key of providerID on connectionID: a long
// provider id is hashed (keyPart), so the key stays short in process too.
func InboundKey(connectionID engine.ID, providerID string) string {
	return "inbound:" + strconv.FormatInt(connectionID, 10) + ":" + keyPart(providerID)
}

type dedupeSink struct {
	d    *InboundDedupe
	conn engine.ID
	next engine.ChannelSink
}

func (s dedupeSink) Inbound(ctx context.Context, m engine.InboundMessage) error {
	d := s.d
	if m.ProviderID == "" {
		return s.next.Inbound(ctx, m)
	}
	done := InboundKey(s.conn, m.ProviderID)
	busy := "busy:" + done
	mine, err := d.claim(ctx, busy, d.pendingTTL())
	switch {
	case err != nil:
		return d.passThrough(ctx, s.next, m, err)
	case !mine:
		d.busy.Add(1)
		return engine.Wrap(engine.ErrUnavailable, fmt.Errorf("inbound %s of connection %d is being handled by another delivery", m.ProviderID, s.conn))
	}
	defer d.giveBack(ctx, s.conn, m.ProviderID, busy)
	fresh, err := d.claim(ctx, done, d.pendingTTL())
	switch {
	case err != nil:
		return d.passThrough(ctx, s.next, m, err)
	case !fresh:
		d.duplicates.Add(1)
		return nil
	}
	if err := s.next.Inbound(ctx, m); err != nil {
		d.released.Add(1)
		d.giveBack(ctx, s.conn, m.ProviderID, done)
		return err
	}
	// Handled: keep the done key for TTL. If this fails, the key lapses after
	// PendingTTL and later re-deliveries reach the actor: harmless.
	if d.ttl() != d.pendingTTL() {
		if err := d.extend(ctx, done, d.ttl()); err != nil {
			d.warn(err)
		}
	}
	return nil
}

// passThrough hands m to next when the keys cannot be used.
func (d *InboundDedupe) passThrough(ctx context.Context, next engine.ChannelSink, m engine.InboundMessage, err error) error {
	d.claimErrors.Add(1)
	if ctx.Err() == nil { // not the delivery's own end
		d.warn(err)
	}
	return next.Inbound(ctx, m)
}

// giveBack releases key; a key it cannot release lapses after PendingTTL.
func (d *InboundDedupe) giveBack(ctx context.Context, conn engine.ID, providerID, key string) {
	if err := d.release(ctx, key); err != nil {
		d.Logger.Error().Err(err).Int64("conn_id", conn).Str("provider_id", providerID).Str("key", key).
			Msg("inbound de-duplication key not released: it lapses after the pending TTL")
	}
}

func (s dedupeSink) Receipt(ctx context.Context, r engine.Receipt) error {
	return s.next.Receipt(ctx, r)
}

func (s dedupeSink) Status(ctx context.Context, st engine.StatusChange) error {
	return s.next.Status(ctx, st)
}

func (d *InboundDedupe) ttl() time.Duration {
	if d.TTL > 0 {
		return d.TTL
	}
	return DefaultInboundDedupeTTL
}

func (d *InboundDedupe) pendingTTL() time.Duration {
	p := d.PendingTTL
	if p <= 0 {
		p = DefaultInboundPendingTTL
	}
	return min(p, d.ttl())
}

func (d *InboundDedupe) callTimeout() time.Duration {
	if d.CallTimeout > 0 {
		return d.CallTimeout
	}
	return defaultDedupeCallTimeout
}

func (d *InboundDedupe) claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, d.callTimeout())
	defer cancel()
	return d.Keys.Claim(ctx, key, ttl)
}

// extend outlives the delivery's context, like release: the message was handled.
func (d *InboundDedupe) extend(ctx context.Context, key string, ttl time.Duration) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.callTimeout())
	defer cancel()
	return d.Keys.Extend(ctx, key, ttl)
}

// release outlives the delivery's context: a delivery that failed because its client
// hung up must still give its key back.
func (d *InboundDedupe) release(ctx context.Context, key string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.callTimeout())
	defer cancel()
	return d.Keys.Release(ctx, key)
}

// warn logs a failed claim at most once per dedupeLogEvery, with how many were not
// logged since the last time.
func (d *InboundDedupe) warn(err error) {
	clock := d.Clock
	if clock == nil {
		clock = engine.SystemClock{}
	}
	now := clock.Now()
	d.mu.Lock()
	if !d.lastLog.IsZero() && now.Sub(d.lastLog) < dedupeLogEvery {
		d.suppressed++
		d.mu.Unlock()
		return
	}
	n := d.suppressed
	d.lastLog, d.suppressed = now, 0
	d.mu.Unlock()
	d.Logger.Warn().Err(err).Uint64("suppressed", n).
		Msg("inbound de-duplication unavailable: deliveries go straight to the connection actors")
}
