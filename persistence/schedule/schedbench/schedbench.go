// Package schedbench reports the figures of benchmark B9 (due schedules fired by one
// node): the timers' benchmark in persistence/schedule and the real send path's in
// actors measure the same things and report them the same way.
package schedbench

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// Settle writes out, on PostgreSQL, what seeding dirtied (CHECKPOINT) and then checks
// that the first due moment, start, is still ahead. Seeding inserts 200,000 rows in two
// statements: a checkpoint's worth of dirty pages that a live node, whose pending
// schedules pile up over days, would have written out long before they fell due.
// Without it that write-out lands inside the window B9 measures (the steady case ran
// after the burst measured p99 1.5 s instead of 0.95 s) and times the seed, not the fires.
func Settle(b *testing.B, d *db.DB, start time.Time) {
	b.Helper()
	if d.Dialect == db.Postgres {
		if _, err := d.SQL.ExecContext(context.Background(), `CHECKPOINT`); err != nil {
			b.Fatalf("checkpoint after seeding: %v", err)
		}
	}
	if time.Now().After(start) {
		b.Fatalf("seeding took longer than the 30 s before the first due moment")
	}
}

// Stamps records when each message id was first handed over. Safe for concurrent use.
type Stamps struct {
	mu sync.Mutex // guards at
	at map[engine.ID]time.Time
}

// Stamp records now for id, unless id has a stamp already.
func (s *Stamps) Stamp(id engine.ID) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == nil {
		s.at = map[engine.ID]time.Time{}
	}
	if _, seen := s.at[id]; !seen {
		s.at[id] = now
	}
}

// Count is how many ids have a stamp.
func (s *Stamps) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.at)
}

// Wait polls until due ids have a stamp or five minutes pass: a machine too slow to
// fire them all reports what it fired and how many it did not (the "unfired" metric)
// rather than no figure at all.
func (s *Stamps) Wait(due int) {
	deadline := time.Now().Add(5 * time.Minute)
	for s.Count() < due && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// Report reports the stamps with the package's Report.
func (s *Stamps) Report(b *testing.B, start time.Time, dueAt func(engine.ID) (time.Time, bool), due, pending int) {
	b.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	Report(b, start, s.at, dueAt, due, pending)
}

// Report reports on b, from when each message id was handed over (fired) and when it
// was due (dueAt; false for one that was not due), the due schedules fired per second
// from start to the last fire, how many of the due count did not fire, the lateness
// (fire − due) p50, p99 and max in milliseconds, and the pending count.
func Report(b *testing.B, start time.Time, fired map[engine.ID]time.Time, dueAt func(engine.ID) (time.Time, bool), due, pending int) {
	b.Helper()
	late := make([]time.Duration, 0, len(fired))
	var last time.Time
	for id, at := range fired {
		w, ok := dueAt(id)
		if !ok {
			b.Fatalf("message %d fired though not due", id)
		}
		late = append(late, at.Sub(w))
		if at.After(last) {
			last = at
		}
	}
	if len(late) == 0 {
		b.Fatalf("nothing fired")
	}
	slices.Sort(late)
	pct := func(p float64) float64 { return float64(late[int(p*float64(len(late)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(float64(len(late))/last.Sub(start).Seconds(), "fired/s")
	b.ReportMetric(float64(due-len(late)), "unfired")
	b.ReportMetric(pct(0.50), "late-p50-ms")
	b.ReportMetric(pct(0.99), "late-p99-ms")
	b.ReportMetric(pct(1), "late-max-ms")
	b.ReportMetric(float64(pending), "pending")
}

// Cases are B9's two loads: 10,000 due at one instant, and 10,000 due 1,000 a second.
var Cases = []struct {
	Name   string
	Due    int
	Spread time.Duration
}{
	{"burst-10k", 10_000, 0},
	{"steady-1000ps", 10_000, 10 * time.Second},
}

// Pending is how many schedules are pending during B9.
const Pending = 100_000
