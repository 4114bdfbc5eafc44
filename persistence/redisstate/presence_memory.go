package redisstate

import (
	"context"
	"sync"
	"time"

	"atende/engine"
)

// MemoryPresence implements engine.Presence in process, for a single node. Expired
// leases are purged whenever their tenant is touched.
type MemoryPresence struct {
	clock engine.Clock // static after NewMemoryPresence

	mu      sync.Mutex                              // guards tenants
	tenants map[engine.ID]map[memLeaseKey]*memLease // live leases per company
}

type memLeaseKey struct {
	userID engine.ID
	node   string
}

type memLease struct {
	lease
	expires time.Time
}

var _ engine.Presence = (*MemoryPresence)(nil)

// NewMemoryPresence returns an empty presence table; clock nil is the system clock.
func NewMemoryPresence(clock engine.Clock) *MemoryPresence {
	if clock == nil {
		clock = engine.SystemClock{}
	}
	return &MemoryPresence{clock: clock, tenants: map[engine.ID]map[memLeaseKey]*memLease{}}
}

// SetOnline implements engine.Presence.
func (p *MemoryPresence) SetOnline(_ context.Context, companyID, userID engine.ID, queueIDs []engine.ID, node string, ttl time.Duration) error {
	if err := checkLease(node, ttl); err != nil {
		return err
	}
	now := p.clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	leases := p.live(companyID, now)
	if leases == nil {
		leases = map[memLeaseKey]*memLease{}
		p.tenants[companyID] = leases
	}
	k := memLeaseKey{userID: userID, node: node}
	l, ok := leases[k]
	if !ok {
		l = &memLease{lease: lease{userID: userID, since: now}}
		leases[k] = l
	}
	l.setAt, l.expires, l.queues = now, now.Add(ttl), engine.NormalizeIDs(queueIDs)
	return nil
}

// SetOffline implements engine.Presence.
func (p *MemoryPresence) SetOffline(_ context.Context, companyID, userID engine.ID, node string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if leases := p.tenants[companyID]; leases != nil {
		delete(leases, memLeaseKey{userID: userID, node: node})
		if len(leases) == 0 {
			delete(p.tenants, companyID)
		}
	}
	return nil
}

// Online implements engine.Presence.
func (p *MemoryPresence) Online(_ context.Context, companyID engine.ID) ([]engine.PresenceEntry, error) {
	now := p.clock.Now()
	p.mu.Lock()
	leases := p.live(companyID, now)
	all := make([]lease, 0, len(leases))
	for _, l := range leases {
		all = append(all, l.lease) // queues are never mutated in place: sharing is safe
	}
	p.mu.Unlock()
	return mergeLeases(all), nil
}

// OnlineInQueue implements engine.Presence.
func (p *MemoryPresence) OnlineInQueue(ctx context.Context, companyID, queueID engine.ID) ([]engine.PresenceEntry, error) {
	all, err := p.Online(ctx, companyID)
	if err != nil {
		return nil, err
	}
	return inQueue(all, queueID), nil
}

// live purges the tenant's expired leases and returns the rest (nil when none).
// Caller holds mu.
func (p *MemoryPresence) live(companyID engine.ID, now time.Time) map[memLeaseKey]*memLease {
	leases := p.tenants[companyID]
	for k, l := range leases {
		if !l.expires.After(now) {
			delete(leases, k)
		}
	}
	if leases != nil && len(leases) == 0 {
		delete(p.tenants, companyID)
		return nil
	}
	return leases
}
