package socket

import (
	"fmt"
	"sync"
	"time"
)

// MemoryBacklogConfig configures NewMemoryBacklog. Zero values are the defaults.
type MemoryBacklogConfig struct {
	// MaxEvents bounds the events held per tenant. Zero: 10,000.
	MaxEvents int
	// MaxAge drops events older than this. Zero: 5 minutes.
	MaxAge time.Duration
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
	// FirstSeq is the number a tenant's sequence starts after, asked once per tenant
	// per process. Nil: the clock in Unix microseconds, so numbers keep growing across
	// restarts (as long as a tenant averages under a million events a second) and a
	// client's number from before a restart is seen as not covered, never as covered
	// by unrelated events. Values stay below 2^53, exact in JavaScript, until 2255.
	FirstSeq func(tenant int64) int64
}

// MemoryBacklog is the in-process Backlog: a bounded window per tenant.
type MemoryBacklog struct {
	// static after construction
	maxEvents int
	maxAge    time.Duration
	now       func() time.Time
	firstSeq  func(tenant int64) int64

	mu      sync.Mutex // guards tenants
	tenants map[int64]*memoryWindow
}

// memoryWindow is one tenant's window: records in sequence order, oldest first.
type memoryWindow struct {
	mu      sync.Mutex // guards the fields below
	last    int64      // last assigned sequence number
	records []*Record  // held records, oldest first; contiguous in Seq
}

// NewMemoryBacklog builds a MemoryBacklog.
func NewMemoryBacklog(cfg MemoryBacklogConfig) (*MemoryBacklog, error) {
	if cfg.MaxEvents < 0 || cfg.MaxAge < 0 {
		return nil, fmt.Errorf("memory backlog: negative MaxEvents %d or MaxAge %s", cfg.MaxEvents, cfg.MaxAge)
	}
	b := &MemoryBacklog{
		maxEvents: cfg.MaxEvents,
		maxAge:    cfg.MaxAge,
		now:       cfg.Now,
		firstSeq:  cfg.FirstSeq,
		tenants:   make(map[int64]*memoryWindow),
	}
	if b.maxEvents == 0 {
		b.maxEvents = 10_000
	}
	if b.maxAge == 0 {
		b.maxAge = 5 * time.Minute
	}
	if b.now == nil {
		b.now = time.Now
	}
	if b.firstSeq == nil {
		b.firstSeq = func(int64) int64 { return b.now().UnixMicro() }
	}
	return b, nil
}

func (b *MemoryBacklog) window(tenant int64) *memoryWindow {
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.tenants[tenant]
	if !ok {
		w = &memoryWindow{last: b.firstSeq(tenant)}
		b.tenants[tenant] = w
	}
	return w
}

// Append implements Backlog.
func (b *MemoryBacklog) Append(tenant int64, build func(seq int64) (*Record, error)) (*Record, error) {
	w := b.window(tenant)
	w.mu.Lock()
	defer w.mu.Unlock()
	seq := w.last + 1
	rec, err := build(seq)
	if err != nil {
		return nil, fmt.Errorf("append event %d of tenant %d: %w", seq, tenant, err)
	}
	rec.Seq = seq
	rec.At = b.now()
	w.last = seq
	w.expire(rec.At.Add(-b.maxAge))
	if len(w.records) >= b.maxEvents {
		w.drop(len(w.records) - b.maxEvents + 1)
	}
	w.records = append(w.records, rec)
	return rec, nil
}

// Replay implements Backlog.
func (b *MemoryBacklog) Replay(tenant int64, after int64, fn func(*Record) bool) error {
	w := b.window(tenant)
	w.mu.Lock()
	defer w.mu.Unlock()
	if after > w.last {
		return fmt.Errorf("replay tenant %d after %d: last is %d: %w", tenant, after, w.last, ErrBacklogGap)
	}
	w.expire(b.now().Add(-b.maxAge))
	oldest := w.last + 1
	if len(w.records) > 0 {
		oldest = w.records[0].Seq
	}
	if after < oldest-1 {
		return fmt.Errorf("replay tenant %d after %d: oldest held is %d: %w", tenant, after, oldest, ErrBacklogGap)
	}
	for _, rec := range w.records[after-(oldest-1):] {
		if !fn(rec) {
			break
		}
	}
	return nil
}

// Last implements Backlog.
func (b *MemoryBacklog) Last(tenant int64) (int64, error) {
	w := b.window(tenant)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last, nil
}

// expire drops records stored before cutoff. Caller holds w.mu.
func (w *memoryWindow) expire(cutoff time.Time) {
	n := 0
	for n < len(w.records) && w.records[n].At.Before(cutoff) {
		n++
	}
	w.drop(n)
}

// drop forgets the n oldest records. Caller holds w.mu.
func (w *memoryWindow) drop(n int) {
	if n <= 0 {
		return
	}
	clear(w.records[:n]) // let the frames go
	w.records = w.records[n:]
	if len(w.records) == 0 {
		w.records = nil
	}
}
