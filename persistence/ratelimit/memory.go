package ratelimit

import (
	"context"
	"errors"
	"sync"
	"time"

	"atende/engine"
)

// DefaultMaxKeys bounds the keys a Memory tracks.
const DefaultMaxKeys = 100000

// Memory counts failures per key in process: a key that failed Limit times within
// Window is refused until its oldest counted failure leaves the window.
type Memory struct {
	// static after New
	limit   int
	window  time.Duration
	maxKeys int
	clock   engine.Clock

	mu   sync.Mutex             // guards keys
	keys map[string][]time.Time // failure times, oldest first, at most limit of them
}

var _ engine.RateLimiter = (*Memory)(nil)

// New returns a limiter allowing limit failures per window per key. clock nil is the
// system clock. maxKeys ≤ 0 means DefaultMaxKeys; when that many keys are tracked,
// expired ones are swept and, if still full, the key with the oldest newest failure
// is dropped (a flood of distinct keys cannot grow memory without bound).
func New(limit int, window time.Duration, maxKeys int, clock engine.Clock) (*Memory, error) {
	if limit <= 0 || window <= 0 {
		return nil, errors.New("ratelimit: limit and window must be positive")
	}
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	if clock == nil {
		clock = engine.SystemClock{}
	}
	return &Memory{limit: limit, window: window, maxKeys: maxKeys, clock: clock, keys: map[string][]time.Time{}}, nil
}

// Allow implements engine.RateLimiter.
func (m *Memory) Allow(_ context.Context, key string) (bool, error) {
	now := m.clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live(key, now)) < m.limit, nil
}

// Fail implements engine.RateLimiter.
func (m *Memory) Fail(_ context.Context, key string) error {
	now := m.clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.live(key, now)
	if ts == nil && len(m.keys) >= m.maxKeys {
		m.sweep(now)
	}
	ts = append(ts, now)
	if len(ts) > m.limit {
		ts = ts[len(ts)-m.limit:]
	}
	m.keys[key] = ts
	return nil
}

// Reset implements engine.RateLimiter.
func (m *Memory) Reset(_ context.Context, key string) error {
	m.mu.Lock()
	delete(m.keys, key)
	m.mu.Unlock()
	return nil
}

// live drops key's failures older than the window and returns the rest. Caller holds mu.
func (m *Memory) live(key string, now time.Time) []time.Time {
	ts, ok := m.keys[key]
	if !ok {
		return nil
	}
	cut := 0
	for cut < len(ts) && now.Sub(ts[cut]) >= m.window {
		cut++
	}
	if cut == len(ts) {
		delete(m.keys, key)
		return nil
	}
	if cut > 0 {
		ts = ts[cut:]
		m.keys[key] = ts
	}
	return ts
}

// sweep removes expired keys, then, if still full, the stalest key. Caller holds mu.
func (m *Memory) sweep(now time.Time) {
	var stalest string
	var stalestAt time.Time
	for k, ts := range m.keys {
		last := ts[len(ts)-1]
		if now.Sub(last) >= m.window {
			delete(m.keys, k)
			continue
		}
		if stalest == "" || last.Before(stalestAt) {
			stalest, stalestAt = k, last
		}
	}
	if len(m.keys) >= m.maxKeys && stalest != "" {
		delete(m.keys, stalest)
	}
}

// Len is the number of keys tracked (for tests and metrics).
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keys)
}
