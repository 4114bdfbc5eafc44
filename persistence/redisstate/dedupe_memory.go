package redisstate

import (
	"context"
	"errors"
	"sync"
	"time"

	"atende/engine"
)

// minSweep is the table size below which MemoryDedupe never sweeps.
const minSweep = 1024

// MemoryDedupe implements engine.DedupeKeys in process, for a single node. Expired
// keys are swept whenever the table has doubled since the last sweep, so memory
// follows the number of live keys at an amortised O(1) per claim.
type MemoryDedupe struct {
	clock engine.Clock // static after NewMemoryDedupe

	mu        sync.Mutex           // guards keys, nextSweep
	keys      map[string]time.Time // key → expiry
	nextSweep int                  // sweep when len(keys) reaches this
}

var _ engine.DedupeKeys = (*MemoryDedupe)(nil)

// NewMemoryDedupe returns an empty key table; clock nil is the system clock.
func NewMemoryDedupe(clock engine.Clock) *MemoryDedupe {
	if clock == nil {
		clock = engine.SystemClock{}
	}
	return &MemoryDedupe{clock: clock, keys: map[string]time.Time{}, nextSweep: minSweep}
}

// Claim implements engine.DedupeKeys.
func (d *MemoryDedupe) Claim(_ context.Context, key string, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		return false, errors.New("redisstate: dedupe ttl must be positive")
	}
	now := d.clock.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if exp, ok := d.keys[key]; ok && exp.After(now) {
		return false, nil
	}
	d.keys[key] = now.Add(ttl)
	if len(d.keys) >= d.nextSweep {
		for k, exp := range d.keys {
			if !exp.After(now) {
				delete(d.keys, k)
			}
		}
		d.nextSweep = max(minSweep, 2*len(d.keys))
	}
	return true, nil
}

// Release implements engine.DedupeKeys.
func (d *MemoryDedupe) Release(_ context.Context, key string) error {
	d.mu.Lock()
	delete(d.keys, key)
	d.mu.Unlock()
	return nil
}

// Extend implements engine.DedupeKeys.
func (d *MemoryDedupe) Extend(_ context.Context, key string, ttl time.Duration) error {
	if ttl <= 0 {
		return errors.New("redisstate: dedupe ttl must be positive")
	}
	now := d.clock.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if exp, ok := d.keys[key]; ok && exp.After(now) {
		d.keys[key] = now.Add(ttl)
	}
	return nil
}

// Len is the number of keys held, expired ones not yet swept included (for tests).
func (d *MemoryDedupe) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.keys)
}
