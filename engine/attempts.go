package engine

import (
	"context"
	"errors"
	"time"
)

// AttemptPolicy says when a key (a login's account and address pair, a client
// address) may make its next attempt, from the attempts it made within Window. Two
// rules, either or both:
//   - a ceiling: with Limit attempts inside Window, the next waits until the oldest
//     of them leaves the window;
//   - progressive delays: the first Free attempts go at once; after that each one
//     waits Delay after the latest, doubling with every further attempt, at most
//     MaxDelay.
//
// Attempts that succeed are released by the caller and do not count. The policy is
// one pure function (Wait) that persistence/ratelimit runs in process and
// persistence/redisstate mirrors in a Redis script; a conformance test holds the two
// equal.
type AttemptPolicy struct {
	// Window is how long an attempt counts. Required.
	Window time.Duration
	// Limit is the ceiling of attempts within Window; 0 means none.
	Limit int
	// Free is how many attempts go without delay; Delay 0 means no delays.
	Free int
	// Delay is the wait after the Free-th attempt; it doubles with each further one.
	Delay time.Duration
	// MaxDelay caps the doubled delay; 0 means Window.
	MaxDelay time.Duration
}

// Validate refuses policies that would never refuse or never forget.
func (p AttemptPolicy) Validate() error {
	switch {
	case p.Window < time.Millisecond:
		return errors.New("attempt policy: window must be at least 1 ms")
	case p.Limit < 0 || p.Free < 0 || p.Delay < 0 || p.MaxDelay < 0:
		return errors.New("attempt policy: negative limit, free count or delay")
	case p.Limit == 0 && p.Delay == 0:
		return errors.New("attempt policy: needs a limit or a delay")
	}
	return nil
}

// maxDelay is MaxDelay with its default.
func (p AttemptPolicy) maxDelay() time.Duration {
	if p.MaxDelay == 0 {
		return p.Window
	}
	return p.MaxDelay
}

// DelayAfter is the wait that follows the n-th attempt (n counts from 1): 0 while
// n ≤ Free, then Delay, 2·Delay, 4·Delay… capped at MaxDelay.
func (p AttemptPolicy) DelayAfter(n int) time.Duration {
	if p.Delay == 0 || n < p.Free || n == 0 {
		return 0
	}
	shift := n - p.Free
	if shift >= 40 {
		return p.maxDelay()
	}
	return min(p.Delay<<shift, p.maxDelay())
}

// Keep is how many of the newest attempts of a key an implementation must keep:
// beyond it older ones change no answer of Wait (the ceiling needs Limit of them, the
// delay saturates at MaxDelay).
func (p AttemptPolicy) Keep() int {
	k := p.Limit
	if p.Delay > 0 {
		n := p.Free
		for p.DelayAfter(n) < p.maxDelay() {
			n++
		}
		k = max(k, n+1)
	}
	return max(k, 1)
}

// Wait is how long a key must wait at now before its next attempt, given the times
// of its attempts still inside the window, oldest first. 0 means it may go now.
func (p AttemptPolicy) Wait(times []time.Time, now time.Time) time.Duration {
	n := len(times)
	var wait time.Duration
	if p.Limit > 0 && n >= p.Limit {
		wait = max(wait, times[n-p.Limit].Add(p.Window).Sub(now))
	}
	if d := p.DelayAfter(n); d > 0 {
		wait = max(wait, times[n-1].Add(d).Sub(now))
	}
	return max(wait, 0)
}

// AttemptLimiter counts attempts per key under an AttemptPolicy, atomically: Reserve
// checks and counts in one step, so that attempts made in parallel are refused as if
// they came one after another (the count happens before the slow check it guards,
// such as a bcrypt comparison). Implementations: persistence/ratelimit.Attempts in
// process, persistence/redisstate.AttemptLimiter shared by a cluster.
type AttemptLimiter interface {
	// Reserve counts one attempt of key and answers its id, or, when the policy
	// refuses it, no id and how long the key must wait (> 0; nothing is counted).
	Reserve(ctx context.Context, key string) (id string, wait time.Duration, err error)
	// Release takes back the attempt id of key (it succeeded, or was refused by
	// another limiter): it no longer counts. An unknown id is ignored.
	Release(ctx context.Context, key, id string) error
	// Reset forgets every attempt of key.
	Reset(ctx context.Context, key string) error
}
