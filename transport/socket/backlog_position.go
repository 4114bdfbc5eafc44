package socket

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// PositionBacklog is the NumberedBacklog of a node that publishes every journal event
// in position order: sequence numbers are journal positions, shared by all nodes.
// It holds a bounded window per tenant. Because the node sees every position from
// Start on, a tenant's window covers a client's number when nothing after it was
// dropped: positions between held records belonged to other tenants.
//
// A client whose number is ahead of this node (it came from a node further along the
// journal) is replayed nothing and receives live events from here on, some of which
// it may have seen: clients ignore events whose seq is not above their last.
type PositionBacklog struct {
	// static after construction
	maxEvents int
	maxAge    time.Duration
	now       func() time.Time

	// last is the position the publisher has reached for every tenant; covered is
	// the position from which this node has seen every event (its start).
	last    atomic.Int64
	covered int64

	mu      sync.Mutex // guards tenants
	tenants map[int64]*positionWindow
}

type positionWindow struct {
	mu      sync.Mutex // guards the fields below
	dropped int64      // position of the newest record dropped (0: none)
	records []*Record  // oldest first, growing Seq
}

// NewPositionBacklog returns a backlog whose coverage starts after position start
// (the journal position the publisher starts from), holding per tenant at most
// maxEvents (0: 10,000) for at most maxAge (0: 5 minutes).
func NewPositionBacklog(start int64, maxEvents int, maxAge time.Duration, now func() time.Time) *PositionBacklog {
	if maxEvents <= 0 {
		maxEvents = 10_000
	}
	if maxAge <= 0 {
		maxAge = 5 * time.Minute
	}
	if now == nil {
		now = time.Now
	}
	b := &PositionBacklog{maxEvents: maxEvents, maxAge: maxAge, now: now, covered: start, tenants: map[int64]*positionWindow{}}
	b.last.Store(start)
	return b
}

// Advance records that the publisher has handled every position up to pos, for all
// tenants (positions without events for a tenant included).
func (b *PositionBacklog) Advance(pos int64) {
	for {
		cur := b.last.Load()
		if pos <= cur || b.last.CompareAndSwap(cur, pos) {
			return
		}
	}
}

func (b *PositionBacklog) window(tenant int64) *positionWindow {
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.tenants[tenant]
	if !ok {
		w = &positionWindow{}
		b.tenants[tenant] = w
	}
	return w
}

// Append implements Backlog: refused, every event must carry its position.
func (b *PositionBacklog) Append(tenant int64, _ func(seq int64) (*Record, error)) (*Record, error) {
	return nil, fmt.Errorf("append to tenant %d: a position backlog takes numbered events only: %w", tenant, ErrInvalidEvent)
}

// AppendNumbered implements NumberedBacklog.
func (b *PositionBacklog) AppendNumbered(tenant, seq int64, build func(seq int64) (*Record, error)) (*Record, error) {
	w := b.window(tenant)
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.records); seq <= b.covered || (n > 0 && seq <= w.records[n-1].Seq) {
		return nil, fmt.Errorf("append %d to tenant %d: not after the last position: %w", seq, tenant, ErrInvalidEvent)
	}
	rec, err := build(seq)
	if err != nil {
		return nil, fmt.Errorf("append event %d of tenant %d: %w", seq, tenant, err)
	}
	rec.Seq, rec.At = seq, b.now()
	w.expire(rec.At.Add(-b.maxAge))
	if len(w.records) >= b.maxEvents {
		w.drop(len(w.records) - b.maxEvents + 1)
	}
	w.records = append(w.records, rec)
	b.Advance(seq)
	return rec, nil
}

// Replay implements Backlog.
func (b *PositionBacklog) Replay(tenant int64, after int64, fn func(*Record) bool) error {
	w := b.window(tenant)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expire(b.now().Add(-b.maxAge))
	if after < b.covered || after < w.dropped {
		return fmt.Errorf("replay tenant %d after %d: held from %d: %w", tenant, after, max(b.covered, w.dropped), ErrBacklogGap)
	}
	for _, rec := range w.records {
		if rec.Seq <= after {
			continue
		}
		if !fn(rec) {
			break
		}
	}
	return nil
}

// Last implements Backlog: the position the node has published up to.
func (b *PositionBacklog) Last(int64) (int64, error) { return b.last.Load(), nil }

// expire drops records stored before cutoff. Caller holds w.mu.
func (w *positionWindow) expire(cutoff time.Time) {
	n := 0
	for n < len(w.records) && w.records[n].At.Before(cutoff) {
		n++
	}
	w.drop(n)
}

// drop forgets the n oldest records. Caller holds w.mu.
func (w *positionWindow) drop(n int) {
	if n <= 0 {
		return
	}
	w.dropped = w.records[n-1].Seq
	clear(w.records[:n])
	w.records = w.records[n:]
	if len(w.records) == 0 {
		w.records = nil
	}
}
