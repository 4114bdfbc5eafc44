package engine

import (
	"context"
	"time"
)

// What the nodes of a cluster share. Single-node mode keeps each in process
// (persistence/redisstate's Memory… types, persistence/ratelimit.Memory); a cluster
// keeps them in Redis (persistence/redisstate), so every node sees the same answer.
// Implementations are safe for concurrent use; errors are wrapped plain errors (the
// store could not be reached), never *Error values.

// PresenceEntry is one user online in a tenant, merged over every node the user has a
// live lease on.
type PresenceEntry struct {
	UserID ID
	// QueueIDs are the queues of the most recently refreshed lease, ascending.
	QueueIDs []ID
	// Since is when the oldest live lease began (a refresh keeps it).
	Since time.Time
}

// Presence tracks who is online. A node holds one lease per (user, node) while that
// user has a socket on it and refreshes it well within ttl (every ttl/3 is a good
// pace); a node that dies stops refreshing, so its leases lapse after ttl. A user is
// online while any of their leases lives.
type Presence interface {
	// SetOnline creates or refreshes the lease of userID on node for ttl (> 0) with the
	// user's current queues. node must not be empty.
	SetOnline(ctx context.Context, companyID, userID ID, queueIDs []ID, node string, ttl time.Duration) error
	// SetOffline drops the lease of userID on node; the user stays online while a lease
	// on another node lives. Dropping an absent lease is not an error.
	SetOffline(ctx context.Context, companyID, userID ID, node string) error
	// Online lists the tenant's users with a live lease, by UserID ascending.
	Online(ctx context.Context, companyID ID) ([]PresenceEntry, error)
	// OnlineInQueue lists the tenant's online users whose QueueIDs hold queueID.
	OnlineInQueue(ctx context.Context, companyID, queueID ID) ([]PresenceEntry, error)
}

// Revocations broadcasts "this user's credentials changed" to every node, so each
// drops what it cached about the user (the access-token principal cache). Delivery is
// at most once: a node whose subscription was down misses messages, so a cache fed by
// it must still expire on its own (token.Service's CacheTTL bounds the staleness).
type Revocations interface {
	// Publish tells every subscriber, on every node including this one, about userID.
	Publish(ctx context.Context, userID ID) error
	// Subscribe calls fn for each published user id until the returned cancel is
	// called. It returns once the subscription is active: a Publish that starts after
	// Subscribe returned reaches fn. Calls of one subscription arrive one at a time;
	// fn must not block for long.
	Subscribe(ctx context.Context, fn func(userID ID)) (cancel func(), err error)
}

// DedupeKeys remembers keys seen recently, cluster-wide: a webhook delivery id, a
// provider message id. Callers put the tenant or connection into the key.
type DedupeKeys interface {
	// Claim reports whether this is the first claim of key within ttl (> 0). Of
	// concurrent claims of one key exactly one is first.
	Claim(ctx context.Context, key string, ttl time.Duration) (first bool, err error)
	// Release forgets key, so the next Claim is first again: call it when handling a
	// claimed delivery failed and the provider will retry it.
	Release(ctx context.Context, key string) error
	// Extend sets the ttl (> 0) of a live claim of key, counted from now (shorter or
	// longer than what it had): call it while holding the claim. A key not claimed, or
	// whose claim lapsed, stays unclaimed.
	Extend(ctx context.Context, key string, ttl time.Duration) error
}
