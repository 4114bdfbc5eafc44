package redisstate

import (
	"errors"
	"slices"
	"time"

	"atende/engine"
)

// lease is one (user, node) presence lease, as both implementations store it.
type lease struct {
	userID engine.ID
	since  time.Time // when this lease began
	setAt  time.Time // its latest refresh
	queues []engine.ID
}

// checkLease validates SetOnline's arguments.
func checkLease(node string, ttl time.Duration) error {
	if node == "" {
		return errors.New("redisstate: presence node must not be empty")
	}
	if ttl <= 0 {
		return errors.New("redisstate: presence ttl must be positive")
	}
	return nil
}

// mergeLeases folds live leases into one entry per user, by UserID ascending: Since is
// the oldest lease's start, QueueIDs those of the most recently refreshed lease.
func mergeLeases(leases []lease) []engine.PresenceEntry {
	type acc struct {
		entry engine.PresenceEntry
		setAt time.Time
	}
	byUser := map[engine.ID]*acc{}
	for _, l := range leases {
		a, ok := byUser[l.userID]
		if !ok {
			byUser[l.userID] = &acc{entry: engine.PresenceEntry{UserID: l.userID, QueueIDs: l.queues, Since: l.since}, setAt: l.setAt}
			continue
		}
		if l.since.Before(a.entry.Since) {
			a.entry.Since = l.since
		}
		if l.setAt.After(a.setAt) {
			a.setAt, a.entry.QueueIDs = l.setAt, l.queues
		}
	}
	out := make([]engine.PresenceEntry, 0, len(byUser))
	for _, a := range byUser {
		a.entry.QueueIDs = engine.NormalizeIDs(a.entry.QueueIDs)
		out = append(out, a.entry)
	}
	slices.SortFunc(out, func(a, b engine.PresenceEntry) int {
		switch {
		case a.UserID < b.UserID:
			return -1
		case a.UserID > b.UserID:
			return 1
		}
		return 0
	})
	return out
}

// inQueue keeps the entries whose queues hold queueID.
func inQueue(entries []engine.PresenceEntry, queueID engine.ID) []engine.PresenceEntry {
	out := make([]engine.PresenceEntry, 0, len(entries))
	for _, e := range entries {
		if _, found := slices.BinarySearch(e.QueueIDs, queueID); found {
			out = append(out, e)
		}
	}
	return out
}
