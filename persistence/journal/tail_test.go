package journal

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// countingReader counts the reads that reach the journal, by limit: each reader of
// the tests asks with a limit of its own.
type countingReader struct {
	*Store
	mu    sync.Mutex
	reads map[int]int
}

func (c *countingReader) ReadAll(ctx context.Context, after int64, limit int) ([]engine.RecordedEvent, error) {
	c.mu.Lock()
	c.reads[limit]++
	c.mu.Unlock()
	return c.Store.ReadAll(ctx, after, limit)
}

func (c *countingReader) count(limit int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads[limit]
}

// tailUntil reads through t after `after`, waiting on Notify, until it holds n events
// or the deadline passes; calls counts its reads.
func tailUntil(t *testing.T, tail *Tail, after int64, n int, limit int, calls *int) []engine.RecordedEvent {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	var got []engine.RecordedEvent
	for len(got) < n {
		wake := tail.Notify()
		page, err := tail.ReadAll(context.Background(), after, limit)
		*calls++
		if err != nil {
			t.Errorf("read after %d: %v", after, err)
			return got
		}
		if len(page) > limit {
			t.Errorf("page of %d events, limit %d", len(page), limit)
		}
		if len(page) > 0 {
			got = append(got, page...)
			after = page[len(page)-1].Position
			continue
		}
		select {
		case <-wake:
		case <-time.After(200 * time.Millisecond): // the tail polls too; so does a reader
		case <-deadline.C:
			t.Errorf("read %d of %d events through the tail", len(got), n)
			return got
		}
	}
	return got
}

func samePositions(t *testing.T, who string, got, want []engine.RecordedEvent) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s read %d events, the journal holds %d", who, len(got), len(want))
		return
	}
	for i := range want {
		if got[i].Position != want[i].Position || got[i].StreamID != want[i].StreamID ||
			got[i].Version != want[i].Version || string(got[i].Data) != string(want[i].Data) {
			t.Errorf("%s: event %d = %s v%d @%d, the journal's is %s v%d @%d", who, i,
				got[i].StreamID, got[i].Version, got[i].Position, want[i].StreamID, want[i].Version, want[i].Position)
			return
		}
	}
}

// Readers sharing a tail while writers append see exactly the journal's read order;
// one that starts behind what the tail keeps reads the journal, then the tail; the
// journal is read far fewer times than the readers read.
func TestTailAnswersAsTheJournal(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		s := newStore(t, d, Config{})
		src := &countingReader{Store: s, reads: map[int]int{}}
		tail := NewTail(src, TailConfig{Events: 40, Batch: 25, Poll: 20 * time.Millisecond})
		defer tail.Close()

		const writers, each = 4, 60
		const total = writers * each
		var readers sync.WaitGroup
		got := make([][]engine.RecordedEvent, 3)
		calls := make([]int, 3)
		for r := range got {
			readers.Add(1)
			go func() {
				defer readers.Done()
				got[r] = tailUntil(t, tail, 0, total, 7+r*10, &calls[r])
			}()
		}
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					_, err := s.Append(context.Background(), 1, fmt.Sprintf("ticket/%d", w), engine.AnyVersion,
						ev("e", fmt.Sprintf(`{"w":%d,"i":%d}`, w, i)))
					if err != nil {
						t.Errorf("append: %v", err)
						return
					}
				}
			}()
		}
		wg.Wait()
		readers.Wait()
		want, err := readUntil(s, total, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for r := range got {
			samePositions(t, fmt.Sprintf("reader %d", r), got[r], want)
		}

		// The tail kept at most 40 events, so a reader from the start reads the
		// journal for the older ones, then the tail, and misses nothing.
		tail.mu.Lock()
		kept, from := len(tail.kept), tail.from
		tail.mu.Unlock()
		if kept > 40 || from == 0 {
			t.Errorf("the tail keeps %d events after position %d; want at most 40 and the oldest dropped", kept, from)
		}
		var lateCalls int
		samePositions(t, "late reader", tailUntil(t, tail, 0, total, 50, &lateCalls), want)
		if n := src.count(50); n == 0 || n >= lateCalls {
			t.Errorf("the late reader read %d times, %d of them from the journal; want its first reads from the journal and its last from the tail", lateCalls, n)
		}

		// The tail reads with its own limit (25); the readers' reads reached the
		// journal only while they were behind what it kept.
		for r := range calls {
			if n := src.count(7 + r*10); n >= calls[r] {
				t.Errorf("reader %d read %d times, all of them from the journal", r, calls[r])
			}
		}

		// Closed, the tail passes reads to the journal.
		tail.Close()
		page, err := tail.ReadAll(context.Background(), want[total-10].Position, 0)
		if err != nil || len(page) != 9 {
			t.Errorf("after Close, read the last 9 events: %d, %v", len(page), err)
		}
	})
}

// A reader ahead of the tail gets nothing until the tail passes it, then only what
// follows its position.
func TestTailReaderAhead(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		s := newStore(t, d, Config{})
		for i := range 10 {
			mustAppend(t, s, 1, "ticket/1", engine.AnyVersion, ev("e", fmt.Sprintf(`{"i":%d}`, i)))
		}
		all, err := readUntil(s, 10, 30*time.Second)
		if err != nil || len(all) != 10 {
			t.Fatalf("journal: %d events, %v", len(all), err)
		}
		tail := NewTail(s, TailConfig{Poll: 20 * time.Millisecond})
		defer tail.Close()
		// The first reader starts the tail at position 0.
		var calls int
		first := tailUntil(t, tail, 0, 10, 100, &calls)
		samePositions(t, "first reader", first, all)
		mustAppend(t, s, 1, "ticket/1", engine.AnyVersion, ev("e", `{"i":10}`))
		ahead := all[9].Position + 1000
		if page, err := tail.ReadAll(context.Background(), ahead, 0); err != nil || len(page) != 0 {
			t.Errorf("a reader ahead of everything got %d events, %v", len(page), err)
		}
		next := tailUntil(t, tail, all[9].Position, 1, 100, &calls)
		if len(next) != 1 || string(next[0].Data) != `{"i":10}` {
			t.Errorf("after the tenth event the tail answered %+v", next)
		}
	})
}

// The tail reads ahead of its most advanced reader by at most half what it keeps
// (plus one read), so a rebuild from position 0 does not read the journal twice.
func TestTailReadsAheadOnlyOfItsReaders(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		s := newStore(t, d, Config{})
		for i := range 200 {
			mustAppend(t, s, 1, fmt.Sprintf("ticket/%d", i%5), engine.AnyVersion, ev("e", fmt.Sprintf(`{"i":%d}`, i)))
		}
		all, err := readUntil(s, 200, 30*time.Second)
		if err != nil || len(all) != 200 {
			t.Fatalf("journal: %d events, %v", len(all), err)
		}
		index := map[int64]int{0: -1}
		for i, e := range all {
			index[e.Position] = i
		}
		tail := NewTail(s, TailConfig{Events: 40, Batch: 10, Poll: 20 * time.Millisecond})
		defer tail.Close()
		var got []engine.RecordedEvent
		after, maxAhead := int64(0), 0
		for len(got) < 200 {
			page, err := tail.ReadAll(context.Background(), after, 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				time.Sleep(10 * time.Millisecond) // the tail reads in the background
				continue
			}
			got = append(got, page...)
			after = page[len(page)-1].Position
			time.Sleep(time.Millisecond) // a slow reader: let the tail run ahead if it would
			maxAhead = max(maxAhead, index[tail.Head()]-index[after])
		}
		samePositions(t, "reader", got, all)
		if maxAhead > 40/2+10 || maxAhead == 0 {
			t.Errorf("the tail was up to %d events ahead of its only reader; want at most 30", maxAhead)
		}
	})
}

// hearingSource is an empty journal whose Notify hears every commit while hears is
// set; it counts the tail's reads.
type hearingSource struct {
	mu    sync.Mutex
	reads int
	hears bool
	ch    chan struct{}
}

func (s *hearingSource) ReadAll(context.Context, int64, int) ([]engine.RecordedEvent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	return nil, nil
}

func (s *hearingSource) Notify() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch
}

func (s *hearingSource) HearsEveryCommit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hears
}

// set changes whether it hears, and signals Notify as the journal's listener does.
func (s *hearingSource) set(hears bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hears = hears
	close(s.ch)
	s.ch = make(chan struct{})
}

func (s *hearingSource) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// waitReads waits until src has been read at least n times.
func waitReads(t *testing.T, src *hearingSource, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); src.count() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d reads, want %d", src.count(), n)
		}
	}
}

// While its source hears every commit, the tail reads when notified (and once more
// after Poll if that found nothing) and every Calm; once the source stops hearing —
// it signals so — the tail polls every Poll until it hears again.
func TestTailCalmWhileItsSourceHearsEveryCommit(t *testing.T) {
	src := &hearingSource{hears: true, ch: make(chan struct{})}
	tail := NewTail(src, TailConfig{Poll: 5 * time.Millisecond, Calm: time.Hour})
	defer tail.Close()
	if _, err := tail.ReadAll(context.Background(), 0, 10); err != nil {
		t.Fatal(err)
	}
	waitReads(t, src, 1)
	calm := func(what string) {
		before := src.count()
		time.Sleep(300 * time.Millisecond) // sixty polls of 5 ms, were it polling
		if n := src.count() - before; n > 1 {
			t.Errorf("%s: %d reads in 300 ms without a notification", what, n)
		}
	}
	calm("hearing")
	// A notification whose read finds nothing is read again after Poll: what it
	// announced may not be readable yet.
	before := src.count()
	src.set(true)
	waitReads(t, src, before+2)
	calm("after a notification")
	src.set(false)
	waitReads(t, src, src.count()+20)
	src.set(true)
	waitReads(t, src, src.count()+2)
	calm("hearing again")
}

// On PostgreSQL the tail hears another node's commit through LISTEN, and again after
// its listener was cut off and came back (it signals on reconnecting), with no poll
// to fall back on: Poll and Calm are an hour.
func TestTailHearsOtherNodesThroughTheListener(t *testing.T) {
	url := dbtest.URL(t, db.Postgres)
	nodes := openStores(t, url, 2, Config{})
	a, b := nodes[0], nodes[1]
	for deadline := time.Now().Add(30 * time.Second); !a.HearsEveryCommit(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the listener never listened")
		}
	}
	tail := NewTail(a, TailConfig{Poll: time.Hour, Calm: time.Hour})
	defer tail.Close()
	var calls int
	if got, err := tail.ReadAll(context.Background(), 0, 10); err != nil || len(got) != 0 { // starts the tail
		t.Fatalf("an empty journal: %d events, %v", len(got), err)
	}
	first := mustAppend(t, b, 1, "ticket/1", engine.AnyVersion, ev("e", `{"i":1}`))
	got := tailUntil(t, tail, 0, 1, 10, &calls)
	if got[0].Position != first.Positions[0] {
		t.Fatalf("read position %d, want %d", got[0].Position, first.Positions[0])
	}

	d, err := db.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var cut int
	if err := d.SQL.QueryRowContext(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN `+notifyChannel+`'`).Scan(&cut); err != nil || cut == 0 {
		t.Fatalf("cut %d listeners: %v", cut, err)
	}
	second := mustAppend(t, b, 1, "ticket/1", engine.AnyVersion, ev("e", `{"i":2}`))
	got = tailUntil(t, tail, first.Positions[0], 1, 10, &calls)
	if got[0].Position != second.Positions[0] {
		t.Fatalf("after the cut: read position %d, want %d", got[0].Position, second.Positions[0])
	}
}
