package netlimit

import (
	"math"
	"sync"
	"time"
)

// Rate is a token bucket's shape: it holds up to Burst tokens and refills at
// PerSecond. A zero Rate (PerSecond 0) means no limit.
type Rate struct {
	PerSecond float64
	Burst     int
}

// PerMinute is a Rate of n per minute holding burst.
func PerMinute(n float64, burst int) Rate { return Rate{PerSecond: n / 60, Burst: burst} }

// Unlimited reports whether r limits nothing.
func (r Rate) Unlimited() bool { return r.PerSecond <= 0 }

// bucket is one token bucket. Callers hold the lock of the structure holding it.
type bucket struct {
	tokens float64
	last   time.Time
}

// refill brings b to now under rate r.
func (b *bucket) refill(r Rate, now time.Time) {
	if el := now.Sub(b.last); el > 0 {
		b.tokens = math.Min(float64(r.Burst), b.tokens+el.Seconds()*r.PerSecond)
		b.last = now
	}
}

// take takes a token at now, or reports how long until one is there.
func (b *bucket) take(r Rate, now time.Time) (bool, time.Duration) {
	b.refill(r, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / r.PerSecond * float64(time.Second))
}

// full reports whether b holds Burst tokens at now: forgetting it loses nothing.
func (b *bucket) full(r Rate, now time.Time) bool {
	return b.tokens+math.Max(0, now.Sub(b.last).Seconds())*r.PerSecond >= float64(r.Burst)
}

// minSweep is the smallest map Buckets and Gate sweep.
const minSweep = 1024

// Buckets is a token bucket per key (a client address, a connection id). A key whose
// bucket has refilled is forgotten, so memory follows the keys that are limited now.
type Buckets struct {
	// static after NewBuckets
	rate Rate
	now  func() time.Time

	mu      sync.Mutex // guards the fields below
	keys    map[string]*bucket
	sweepAt int // len(keys) at which Take next sweeps the full buckets
}

// NewBuckets returns a bucket per key shaped by rate; now nil is time.Now. A zero
// rate allows everything.
func NewBuckets(rate Rate, now func() time.Time) *Buckets {
	if now == nil {
		now = time.Now
	}
	rate.Burst = max(rate.Burst, 1)
	return &Buckets{rate: rate, now: now, keys: make(map[string]*bucket), sweepAt: minSweep}
}

// Take takes a token from key's bucket. When there is none it answers false and how
// long until there is one.
func (b *Buckets) Take(key string) (bool, time.Duration) {
	if b == nil || b.rate.Unlimited() {
		return true, 0
	}
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.keys[key]
	if k == nil {
		if len(b.keys) >= b.sweepAt {
			for id, o := range b.keys {
				if o.full(b.rate, now) {
					delete(b.keys, id)
				}
			}
			b.sweepAt = max(minSweep, 2*len(b.keys))
		}
		k = &bucket{tokens: float64(b.rate.Burst), last: now}
		b.keys[key] = k
	}
	return k.take(b.rate, now)
}

// Len is how many keys are tracked (a test's view of memory).
func (b *Buckets) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.keys)
}
