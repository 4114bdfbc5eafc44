package webchat

import (
	"sync"
	"time"
)

// bucket is a token bucket: it holds up to burst tokens, refilled at rate per
// second; each allowed event takes one.
type bucket struct {
	// static after construction
	rate  float64
	burst float64

	mu     sync.Mutex // guards the fields below
	tokens float64
	last   time.Time
}

func newBucket(rate float64, burst int, now time.Time) *bucket {
	return &bucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: now}
}

// allow takes a token if there is one at now.
func (b *bucket) allow(now time.Time) bool {
	ok, _ := b.take(now)
	return ok
}

// take takes a token if there is one at now; otherwise it answers how long until
// there is one.
func (b *bucket) take(now time.Time) (bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if el := now.Sub(b.last); el > 0 {
		b.tokens = min(b.burst, b.tokens+el.Seconds()*b.rate)
		b.last = now
	}
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) / b.rate * float64(time.Second))
	}
	b.tokens--
	return true, 0
}

// full reports whether the bucket would hold burst tokens at now: forgetting it then
// loses nothing.
func (b *bucket) full(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tokens+max(0, now.Sub(b.last).Seconds())*b.rate >= b.burst
}
