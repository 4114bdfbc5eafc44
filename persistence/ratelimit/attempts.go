package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"atende/engine"
)

// Attempts is engine.AttemptLimiter in process: per key, the attempts still inside
// the policy's window, oldest first. Reserve decides and counts under one lock, so
// parallel attempts are judged one after another.
type Attempts struct {
	// static after NewAttempts
	policy  engine.AttemptPolicy
	keep    int
	maxKeys int
	clock   engine.Clock
	nonce   string

	mu   sync.Mutex           // guards keys, seq
	keys map[string][]attempt // attempts inside the window, oldest first, at most keep
	seq  uint64
}

// attempt is one counted attempt.
type attempt struct {
	id string
	at time.Time
}

var _ engine.AttemptLimiter = (*Attempts)(nil)

// NewAttempts returns an in-process limiter applying policy. clock nil is the system
// clock; maxKeys ≤ 0 means DefaultMaxKeys (when full, expired keys are swept and
// then the key whose latest attempt is oldest is dropped).
func NewAttempts(policy engine.AttemptPolicy, maxKeys int, clock engine.Clock) (*Attempts, error) {
	if err := policy.Validate(); err != nil {
		return nil, fmt.Errorf("ratelimit: %w", err)
	}
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	if clock == nil {
		clock = engine.SystemClock{}
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &Attempts{policy: policy, keep: policy.Keep(), maxKeys: maxKeys, clock: clock,
		nonce: hex.EncodeToString(b[:]), keys: map[string][]attempt{}}, nil
}

// Reserve implements engine.AttemptLimiter.
func (a *Attempts) Reserve(_ context.Context, key string) (string, time.Duration, error) {
	now := a.clock.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	live := a.live(key, now)
	times := make([]time.Time, len(live))
	for i, e := range live {
		times[i] = e.at
	}
	if wait := a.policy.Wait(times, now); wait > 0 {
		return "", wait, nil
	}
	if live == nil && len(a.keys) >= a.maxKeys {
		a.sweep(now)
	}
	a.seq++
	e := attempt{id: a.nonce + ":" + strconv.FormatUint(a.seq, 10), at: now}
	// Keep time order even if the clock stepped back.
	i := len(live)
	for i > 0 && live[i-1].at.After(now) {
		i--
	}
	live = slices.Insert(live, i, e)
	if extra := len(live) - a.keep; extra > 0 {
		live = slices.Delete(live, 0, extra)
	}
	a.keys[key] = live
	return e.id, 0, nil
}

// Release implements engine.AttemptLimiter.
func (a *Attempts) Release(_ context.Context, key, id string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	live := a.keys[key]
	i := slices.IndexFunc(live, func(e attempt) bool { return e.id == id })
	if i < 0 {
		return nil
	}
	live = slices.Delete(live, i, i+1)
	if len(live) == 0 {
		delete(a.keys, key)
	} else {
		a.keys[key] = live
	}
	return nil
}

// Reset implements engine.AttemptLimiter.
func (a *Attempts) Reset(_ context.Context, key string) error {
	a.mu.Lock()
	delete(a.keys, key)
	a.mu.Unlock()
	return nil
}

// Len is the number of keys tracked (for tests and metrics).
func (a *Attempts) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.keys)
}

// live drops key's attempts older than the window and returns the rest. Caller holds mu.
func (a *Attempts) live(key string, now time.Time) []attempt {
	ts, ok := a.keys[key]
	if !ok {
		return nil
	}
	cut := 0
	for cut < len(ts) && now.Sub(ts[cut].at) >= a.policy.Window {
		cut++
	}
	if cut == len(ts) {
		delete(a.keys, key)
		return nil
	}
	if cut > 0 {
		ts = slices.Delete(ts, 0, cut)
		a.keys[key] = ts
	}
	return ts
}

// sweep removes expired keys, then, if still full, the stalest key. Caller holds mu.
func (a *Attempts) sweep(now time.Time) {
	var stalest string
	var stalestAt time.Time
	for k, ts := range a.keys {
		last := ts[len(ts)-1].at
		if now.Sub(last) >= a.policy.Window {
			delete(a.keys, k)
			continue
		}
		if stalest == "" || last.Before(stalestAt) {
			stalest, stalestAt = k, last
		}
	}
	if len(a.keys) >= a.maxKeys && stalest != "" {
		delete(a.keys, stalest)
	}
}
