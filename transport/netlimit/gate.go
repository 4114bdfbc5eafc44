package netlimit

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// GateConfig shapes a Gate. Every zero value means "no limit".
type GateConfig struct {
	// MaxConnections bounds the connections open through the Gate at once; one more
	// is refused with 503.
	MaxConnections int
	// MaxPerAddress bounds the connections of one client address open at once; one
	// more is refused with 429.
	MaxPerAddress int
	// Rate bounds new connections of all addresses together (refused with 503), and
	// AddressRate those of one address (refused with 429): token buckets.
	Rate        Rate
	AddressRate Rate
	// Now is the clock of the rates. Nil: time.Now.
	Now func() time.Time
}

// Gate admits connections: it counts the open ones per client address and in total
// and the new ones per second, and refuses those beyond its limits with a Refusal
// that says which HTTP status and Retry-After to answer. Each admitted connection
// holds a Pass until it ends.
type Gate struct {
	// static after NewGate
	cfg GateConfig

	mu      sync.Mutex // guards the fields below
	open    int
	global  bucket
	addrs   map[string]*entry
	sweepAt int // len(addrs) at which Enter next sweeps the idle entries

	refusedAddress, refusedNode atomic.Int64 // refusals since start, by scope
}

// entry is one client address: its open connections and its rate bucket.
type entry struct {
	open int
	rate bucket
}

// NewGate returns a Gate with cfg's limits; negative limits are an error.
func NewGate(cfg GateConfig) (*Gate, error) {
	if cfg.MaxConnections < 0 || cfg.MaxPerAddress < 0 || cfg.Rate.PerSecond < 0 || cfg.AddressRate.PerSecond < 0 {
		return nil, fmt.Errorf("netlimit: negative limit in %+v", cfg)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Rate.Burst = max(cfg.Rate.Burst, 1)
	cfg.AddressRate.Burst = max(cfg.AddressRate.Burst, 1)
	g := &Gate{cfg: cfg, addrs: make(map[string]*entry), sweepAt: minSweep}
	g.global = bucket{tokens: float64(cfg.Rate.Burst), last: cfg.Now()}
	return g, nil
}

// Refusal says why a Gate refused a connection and what to answer.
type Refusal struct {
	Status     int           // 429 (this address) or 503 (the whole node)
	RetryAfter time.Duration // when trying again may succeed; at least a second
	Reason     string        // for the answer and the logs
}

func (r *Refusal) Error() string { return "netlimit: refused: " + r.Reason }

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, at least 1: the value
// of the Retry-After header.
func (r *Refusal) RetryAfterSeconds() int {
	return max(1, int((r.RetryAfter+time.Second-1)/time.Second))
}

// SetHeader sets Retry-After on h.
func (r *Refusal) SetHeader(h http.Header) { h.Set("Retry-After", strconv.Itoa(r.RetryAfterSeconds())) }

// busyRetry is the Retry-After of a refusal for too many open connections: they
// end at their own pace, so a client is told to wait a while, not a token's time.
const busyRetry = 10 * time.Second

// Pass is an admitted connection. Done releases it, once; later calls do nothing.
type Pass struct {
	g    *Gate
	addr string
	done atomic.Bool // a flag, not a sync.Once: one Pass per open connection
}

// Done releases the connection's place.
func (p *Pass) Done() {
	if p == nil || p.g == nil || !p.done.CompareAndSwap(false, true) {
		return
	}
	p.g.leave(p.addr)
}

// Enter admits a new connection from addr, or refuses it. A nil Gate admits all.
func (g *Gate) Enter(addr string) (*Pass, *Refusal) {
	if g == nil {
		return &Pass{}, nil
	}
	p, ref := g.enter(addr)
	switch {
	case ref == nil:
	case ref.Status == http.StatusTooManyRequests:
		g.refusedAddress.Add(1)
	default:
		g.refusedNode.Add(1)
	}
	return p, ref
}

func (g *Gate) enter(addr string) (*Pass, *Refusal) {
	now := g.cfg.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if limit := g.cfg.MaxConnections; limit > 0 && g.open >= limit {
		return nil, &Refusal{Status: http.StatusServiceUnavailable, RetryAfter: busyRetry, Reason: "too many connections"}
	}
	e := g.addrs[addr]
	if e == nil {
		if len(g.addrs) >= g.sweepAt {
			g.sweep(now)
		}
		e = &entry{rate: bucket{tokens: float64(g.cfg.AddressRate.Burst), last: now}}
		g.addrs[addr] = e
	}
	if limit := g.cfg.MaxPerAddress; limit > 0 && e.open >= limit {
		return nil, &Refusal{Status: http.StatusTooManyRequests, RetryAfter: busyRetry, Reason: "too many connections from this address"}
	}
	// The address's own bucket first: a client over its rate spends none of the
	// node's, so it cannot starve the others' handshakes.
	if !g.cfg.AddressRate.Unlimited() {
		if ok, wait := e.rate.take(g.cfg.AddressRate, now); !ok {
			return nil, &Refusal{Status: http.StatusTooManyRequests, RetryAfter: wait, Reason: "too many new connections from this address"}
		}
	}
	if !g.cfg.Rate.Unlimited() {
		if ok, wait := g.global.take(g.cfg.Rate, now); !ok {
			return nil, &Refusal{Status: http.StatusServiceUnavailable, RetryAfter: wait, Reason: "too many new connections"}
		}
	}
	e.open++
	g.open++
	return &Pass{g: g, addr: addr}, nil
}

// leave releases one connection of addr.
func (g *Gate) leave(addr string) {
	now := g.cfg.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open--
	e := g.addrs[addr]
	if e == nil {
		return
	}
	e.open--
	if e.open <= 0 && (g.cfg.AddressRate.Unlimited() || e.rate.full(g.cfg.AddressRate, now)) {
		delete(g.addrs, addr)
	}
}

// sweep forgets the addresses without open connections whose bucket has refilled,
// and sets the next sweep at twice what is left. Caller holds mu.
func (g *Gate) sweep(now time.Time) {
	for a, e := range g.addrs {
		if e.open <= 0 && (g.cfg.AddressRate.Unlimited() || e.rate.full(g.cfg.AddressRate, now)) {
			delete(g.addrs, a)
		}
	}
	g.sweepAt = max(minSweep, 2*len(g.addrs))
}

// GateStats are a Gate's counters.
type GateStats struct {
	Open           int   // connections holding a Pass
	Addresses      int   // addresses tracked
	RefusedAddress int64 // refusals by a per-address limit (429) since start
	RefusedNode    int64 // refusals by a node-wide limit (503) since start
}

// Stats reads the counters.
func (g *Gate) Stats() GateStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return GateStats{Open: g.open, Addresses: len(g.addrs),
		RefusedAddress: g.refusedAddress.Load(), RefusedNode: g.refusedNode.Load()}
}

// OpenFrom is how many connections of addr hold a Pass.
func (g *Gate) OpenFrom(addr string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e := g.addrs[addr]; e != nil {
		return e.open
	}
	return 0
}
