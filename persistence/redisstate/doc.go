// Package redisstate keeps what the nodes of a cluster share: presence
// (engine.Presence), token revocations (engine.Revocations), web-hook de-duplication
// keys (engine.DedupeKeys), login attempt limits (engine.AttemptLimiter) and failure
// counters (engine.RateLimiter).
//
// Two implementations of each, behind the same engine interfaces and checked by one
// conformance suite (conformance_test.go), which runs every behaviour against both:
//
//   - Redis (github.com/redis/go-redis/v9), for a cluster: Open a *Redis, then take
//     Presence, Revocations, DedupeKeys, AttemptLimiter and RateLimiter from it.
//     Writes that must be atomic (presence leases, rate-limit windows, an attempt's
//     check and count) are Lua scripts; lease expiry uses
//     the Redis server's clock, rate-limit windows the caller's engine.Clock (so every
//     node must keep its clock in sync, as NTP does; skew of a few ms against a window
//     of minutes does not matter).
//   - Memory…, in process, for a single node (MemoryPresence, MemoryRevocations,
//     MemoryDedupe). The in-process limiters are persistence/ratelimit.Attempts and
//     .Memory; they are not repeated here.
//
// InboundDedupe puts engine.DedupeKeys to work: it decorates the engine.ChannelSink
// the web-hook handlers deliver to, so that a provider's re-delivery of an inbound
// message already handled is answered without a call to the connection actor.
//
// Keys. Every key starts with Config.Prefix ("atende:" by default) and a namespace
// (presence, rl, dd), then its own parts. Keys of one tenant carry a Redis hash tag
// ({companyID}) so a tenant's keys sit in one slot of a Redis Cluster and a script may
// touch them together. Caller-given strings (rate-limit keys, dedupe keys, node names)
// are binary-safe in Redis and never split on; ones longer than 200 bytes are stored
// as their SHA-256, so a hostile 10 kB key costs no more than a short one.
//
// Concurrency. Every type is safe for concurrent use. The only goroutines are one per
// Revocations subscription (Redis and memory alike deliver on the subscriber's own
// goroutine); they are tracked and Close / cancel waits for them.
package redisstate
