package socket

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for backlogs.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// backlogFactory builds an empty Backlog holding at most maxEvents per tenant for
// maxAge on clock, whose tenants start after sequence number 100.
type backlogFactory func(t *testing.T, maxEvents int, maxAge time.Duration, clock *fakeClock) Backlog

// TestBacklogs runs the Backlog behaviour suite against every implementation.
// A Redis-backed one joins this table.
func TestBacklogs(t *testing.T) {
	impls := []struct {
		name string
		new  backlogFactory
	}{
		{name: "memory", new: func(t *testing.T, maxEvents int, maxAge time.Duration, clock *fakeClock) Backlog {
			return mustMemoryBacklog(t, MemoryBacklogConfig{MaxEvents: maxEvents, MaxAge: maxAge, Now: clock.Now,
				FirstSeq: func(int64) int64 { return 100 }})
		}},
	}
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) { backlogSuite(t, impl.new) })
	}
}

func backlogSuite(t *testing.T, newBacklog backlogFactory) {
	appendN := func(t *testing.T, b Backlog, tenant int64, n int) []int64 {
		t.Helper()
		var seqs []int64
		for i := 0; i < n; i++ {
			rec, err := b.Append(tenant, func(seq int64) (*Record, error) {
				return &Record{Name: "e", Frame: []byte{byte(seq)}, Rooms: []Room{CompanyRoom()}}, nil
			})
			if err != nil {
				t.Fatalf("append: %v", err)
			}
			seqs = append(seqs, rec.Seq)
		}
		return seqs
	}
	replayed := func(t *testing.T, b Backlog, tenant, after int64) ([]int64, error) {
		t.Helper()
		var got []int64
		err := b.Replay(tenant, after, func(r *Record) bool {
			got = append(got, r.Seq)
			return true
		})
		return got, err
	}
	t.Run("numbers each tenant on its own", func(t *testing.T) {
		b := newBacklog(t, 100, time.Hour, &fakeClock{now: time.Unix(1e9, 0)})
		if last, _ := b.Last(7); last != 100 {
			t.Fatalf("fresh tenant last %d, want its first seq 100", last)
		}
		a := appendN(t, b, 7, 3)
		c := appendN(t, b, 8, 2)
		if a[0] != 101 || a[2] != 103 || c[0] != 101 || c[1] != 102 {
			t.Fatalf("tenant 7 %v, tenant 8 %v", a, c)
		}
		if last, _ := b.Last(7); last != 103 {
			t.Fatalf("last %d", last)
		}
	})
	t.Run("a failed build uses no number", func(t *testing.T) {
		b := newBacklog(t, 100, time.Hour, &fakeClock{now: time.Unix(1e9, 0)})
		boom := errors.New("boom")
		if _, err := b.Append(1, func(int64) (*Record, error) { return nil, boom }); !errors.Is(err, boom) {
			t.Fatalf("append error %v", err)
		}
		if s := appendN(t, b, 1, 1); s[0] != 101 {
			t.Fatalf("next seq %d, want 101", s[0])
		}
		got, err := replayed(t, b, 1, 100)
		if err != nil || len(got) != 1 {
			t.Fatalf("replay %v %v", got, err)
		}
	})
	t.Run("replays in order after a number", func(t *testing.T) {
		b := newBacklog(t, 100, time.Hour, &fakeClock{now: time.Unix(1e9, 0)})
		appendN(t, b, 1, 5)
		for _, tc := range []struct {
			after int64
			want  int
		}{{100, 5}, {102, 3}, {105, 0}} {
			got, err := replayed(t, b, 1, tc.after)
			if err != nil || len(got) != tc.want {
				t.Fatalf("after %d: %v %v, want %d records", tc.after, got, err, tc.want)
			}
			for i, s := range got {
				if s != tc.after+1+int64(i) {
					t.Fatalf("after %d: %v out of order", tc.after, got)
				}
			}
		}
		var n int
		if err := b.Replay(1, 100, func(*Record) bool { n++; return n < 2 }); err != nil || n != 2 {
			t.Fatalf("stopping replay called fn %d times (%v)", n, err)
		}
	})
	t.Run("a number from the future is a gap", func(t *testing.T) {
		b := newBacklog(t, 100, time.Hour, &fakeClock{now: time.Unix(1e9, 0)})
		appendN(t, b, 1, 2)
		if _, err := replayed(t, b, 1, 103); !errors.Is(err, ErrBacklogGap) {
			t.Fatalf("replay after 103 of 102: %v", err)
		}
	})
	t.Run("a number before the tenant's start is a gap", func(t *testing.T) {
		b := newBacklog(t, 100, time.Hour, &fakeClock{now: time.Unix(1e9, 0)})
		appendN(t, b, 1, 2)
		if _, err := replayed(t, b, 1, 99); !errors.Is(err, ErrBacklogGap) {
			t.Fatalf("replay after 99: %v", err)
		}
	})
	t.Run("bounded by count", func(t *testing.T) {
		b := newBacklog(t, 3, time.Hour, &fakeClock{now: time.Unix(1e9, 0)})
		appendN(t, b, 1, 5) // 101..105, holds 103..105
		if _, err := replayed(t, b, 1, 101); !errors.Is(err, ErrBacklogGap) {
			t.Fatalf("after 101: %v, want gap", err)
		}
		got, err := replayed(t, b, 1, 102)
		if err != nil || len(got) != 3 || got[0] != 103 {
			t.Fatalf("after 102: %v %v", got, err)
		}
	})
	t.Run("bounded by age", func(t *testing.T) {
		clock := &fakeClock{now: time.Unix(1e9, 0)}
		b := newBacklog(t, 100, time.Minute, clock)
		appendN(t, b, 1, 2) // 101, 102
		clock.Advance(45 * time.Second)
		appendN(t, b, 1, 1) // 103
		clock.Advance(30 * time.Second)
		if _, err := replayed(t, b, 1, 100); !errors.Is(err, ErrBacklogGap) {
			t.Fatalf("after 100 once 101 expired: %v", err)
		}
		if got, err := replayed(t, b, 1, 102); err != nil || len(got) != 1 {
			t.Fatalf("after 102: %v %v", got, err)
		}
		clock.Advance(time.Minute)
		// Everything expired: covered only from the last number on.
		if got, err := replayed(t, b, 1, 103); err != nil || len(got) != 0 {
			t.Fatalf("after 103, all expired: %v %v", got, err)
		}
		if _, err := replayed(t, b, 1, 102); !errors.Is(err, ErrBacklogGap) {
			t.Fatalf("after 102, all expired: %v", err)
		}
	})
	t.Run("concurrent tenants", func(t *testing.T) {
		b := newBacklog(t, 1000, time.Hour, &fakeClock{now: time.Unix(1e9, 0)})
		var wg sync.WaitGroup
		for tenant := int64(1); tenant <= 4; tenant++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				appendN(t, b, tenant, 200)
			}()
		}
		wg.Wait()
		for tenant := int64(1); tenant <= 4; tenant++ {
			got, err := replayed(t, b, tenant, 100)
			if err != nil || len(got) != 200 || got[199] != 300 {
				t.Fatalf("tenant %d: %d records, %v", tenant, len(got), err)
			}
		}
	})
}

func TestDefaultFirstSeqGrowsAcrossRestarts(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	before := mustMemoryBacklog(t, MemoryBacklogConfig{Now: clock.Now})
	rec, err := before.Append(1, func(int64) (*Record, error) { return &Record{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second) // a restart a second later
	after := mustMemoryBacklog(t, MemoryBacklogConfig{Now: clock.Now})
	last, _ := after.Last(1)
	if last <= rec.Seq || last >= 1<<53 {
		t.Fatalf("after restart last %d, before %d: must grow and stay below 2^53", last, rec.Seq)
	}
	if err := after.Replay(1, rec.Seq, func(*Record) bool { return true }); !errors.Is(err, ErrBacklogGap) {
		t.Fatalf("a number from before the restart: %v, want a gap", err)
	}
}
