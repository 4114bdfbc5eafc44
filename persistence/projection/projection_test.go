package projection_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
	"atende/persistence/projection"
)

// counts is the toy read model: events per stream, plus the last position applied to
// each stream, which Apply uses to refuse an event seen twice or out of order.
type counts struct {
	name string
	// failing, while set, makes Apply fail on any batch holding that position.
	failing atomic.Int64
	applied atomic.Int64 // events applied in committed or rolled-back batches
}

func (c *counts) Name() string { return c.name }

func (c *counts) Apply(ctx context.Context, tx *sql.Tx, _ *db.DB, events []engine.RecordedEvent) error {
	for _, e := range events {
		if p := c.failing.Load(); p != 0 && e.Position == p {
			return fmt.Errorf("refusing position %d", p)
		}
		var last int64
		err := tx.QueryRowContext(ctx, `SELECT last_position FROM stream_counts WHERE stream_id = $1`, e.StreamID).Scan(&last)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if e.Position <= last {
			return fmt.Errorf("position %d of %s after %d: applied twice or out of order", e.Position, e.StreamID, last)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO stream_counts (stream_id, n, last_position) VALUES ($1, 1, $2)
			ON CONFLICT (stream_id) DO UPDATE SET n = stream_counts.n + 1, last_position = excluded.last_position`,
			e.StreamID, e.Position); err != nil {
			return err
		}
		c.applied.Add(1)
	}
	return nil
}

func (c *counts) Reset(ctx context.Context, tx *sql.Tx, _ *db.DB) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM stream_counts`)
	return err
}

func setup(t *testing.T, d *db.DB) *journal.Store {
	t.Helper()
	dbtest.MustExec(t, d, `CREATE TABLE stream_counts (stream_id TEXT PRIMARY KEY, n BIGINT NOT NULL, last_position BIGINT NOT NULL)`)
	j, err := journal.New(d, journal.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func newRunner(t *testing.T, d *db.DB, j projection.Source, ps ...projection.Projection) *projection.Runner {
	t.Helper()
	r, err := projection.New(d, j, projection.Config{BatchSize: 17, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond}, ps...)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func count(t *testing.T, d *db.DB, stream string) int64 {
	t.Helper()
	var n int64
	err := d.SQL.QueryRow(`SELECT n FROM stream_counts WHERE stream_id = $1`, stream).Scan(&n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.Fatal(err)
	}
	return n
}

// assertCounts checks the read model against the journal: every stream's count is its
// version, and the total is the head.
func assertCounts(t *testing.T, d *db.DB, j *journal.Store) {
	t.Helper()
	ctx := context.Background()
	head, err := j.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := j.ReadAll(ctx, 0, int(head)+1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for _, e := range evs {
		want[e.StreamID] = e.Version
	}
	var total int64
	if err := d.SQL.QueryRow(`SELECT coalesce(sum(n), 0) FROM stream_counts`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != head {
		t.Errorf("read model counts %d events, journal holds %d", total, head)
	}
	for s, v := range want {
		if n := count(t, d, s); n != v {
			t.Errorf("stream %s counted %d, version is %d", s, n, v)
		}
	}
}

// Appends run concurrently with the tailing; each writer waits for its own write and
// must then see it in the read model (read-your-writes); at the end every event was
// applied exactly once, in order.
func TestRunnerTailsConcurrentAppendsAndWaitFor(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		tailConcurrentAppends(t, d, func(j *journal.Store) projection.Source { return j })
	})
}

// The same through a journal.Tail that keeps fewer events than the history, so the
// runner reads the journal first, then the tail.
func TestRunnerThroughAJournalTail(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		tailConcurrentAppends(t, d, func(j *journal.Store) projection.Source {
			tail := journal.NewTail(j, journal.TailConfig{Events: 20, Batch: 9, Poll: 20 * time.Millisecond})
			t.Cleanup(tail.Close)
			return tail
		})
	})
}

func tailConcurrentAppends(t *testing.T, d *db.DB, source func(*journal.Store) projection.Source) {
	ctx := context.Background()
	j := setup(t, d)
	for i := range 30 { // some history before the runner starts
		if _, err := j.Append(ctx, 1, fmt.Sprintf("ticket/%d", i%5), engine.AnyVersion, engine.EventData{Type: "e", Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	p := &counts{name: "counts"}
	r := newRunner(t, d, source(j), p)

	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 25 {
				stream := fmt.Sprintf("ticket/%d", (w*25+i)%12)
				res, err := j.Append(ctx, 1, stream, engine.AnyVersion, engine.EventData{Type: "e", Data: []byte(`{}`)})
				if err != nil {
					t.Errorf("append: %v", err)
					return
				}
				wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				err = r.WaitFor(wctx, res.LastPosition())
				cancel()
				if err != nil {
					t.Errorf("wait for %d: %v", res.LastPosition(), err)
					return
				}
				if n := count(t, d, stream); n < res.Version {
					t.Errorf("after WaitFor(%d) stream %s counts %d, its version is %d", res.LastPosition(), stream, n, res.Version)
				}
			}
		})
	}
	wg.Wait()
	head, _ := j.Head(ctx)
	if err := r.WaitFor(ctx, head); err != nil {
		t.Fatal(err)
	}
	assertCounts(t, d, j)
	if cp, _ := r.Checkpoint("counts"); cp != head {
		t.Errorf("checkpoint %d, head %d", cp, head)
	}
	only, err := r.Only("counts")
	if err != nil {
		t.Fatal(err)
	}
	if r.Applied() != head || only.Applied() != head {
		t.Errorf("applied %d (runner), %d (counts), head %d", r.Applied(), only.Applied(), head)
	}
	var stored int64
	_ = d.SQL.QueryRow(`SELECT position FROM projection_checkpoints WHERE name = 'counts'`).Scan(&stored)
	if stored != head {
		t.Errorf("stored checkpoint %d, head %d", stored, head)
	}
	if p.applied.Load() != head {
		t.Errorf("applied %d events for %d in the journal", p.applied.Load(), head)
	}
}

// A failing projection is retried from the same position and never skips; WaitFor
// for a later position waits until it recovers.
func TestRunnerRetriesFailingProjectionWithoutSkipping(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		j := setup(t, d)
		p := &counts{name: "counts"}
		p.failing.Store(4)
		r := newRunner(t, d, j, p)
		var last engine.AppendResult
		for i := range 10 {
			var err error
			if last, err = j.Append(ctx, 1, fmt.Sprintf("ticket/%d", i%3), engine.AnyVersion, engine.EventData{Type: "e", Data: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		err := r.WaitFor(short, last.LastPosition())
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "counts at") {
			t.Fatalf("WaitFor while failing = %v, want a deadline naming the lagging projection", err)
		}
		// The runner may not have reached position 4 yet on a loaded machine: wait for
		// its first failure (the status then says which position refused), for as long
		// as it takes.
		st := r.Status()
		for deadline := time.Now().Add(30 * time.Second); len(st) == 1 && st[0].Failures == 0 && time.Now().Before(deadline); st = r.Status() {
			time.Sleep(20 * time.Millisecond)
		}
		if len(st) != 1 || st[0].Failures == 0 || !strings.Contains(st[0].LastErr, "refusing position 4") || st[0].Position >= 4 {
			t.Fatalf("status while failing = %+v", st)
		}
		p.failing.Store(0)
		if err := r.WaitFor(ctx, last.LastPosition()); err != nil {
			t.Fatal(err)
		}
		assertCounts(t, d, j)
		if st := r.Status(); st[0].Failures != 0 || st[0].LastErr != "" {
			t.Errorf("status after recovery = %+v", st)
		}
	})
}

// Reset empties the read model and replays the journal: counts come out the same, not
// doubled. Unknown names are refused.
func TestRunnerReset(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		j := setup(t, d)
		p := &counts{name: "counts"}
		r := newRunner(t, d, j, p)
		var res engine.AppendResult
		for i := range 40 {
			res, _ = j.Append(ctx, 1, fmt.Sprintf("ticket/%d", i%7), engine.AnyVersion, engine.EventData{Type: "e", Data: []byte(`{}`)})
		}
		if err := r.WaitFor(ctx, res.LastPosition()); err != nil {
			t.Fatal(err)
		}
		before := p.applied.Load()
		if err := r.Reset(ctx, "counts"); err != nil {
			t.Fatal(err)
		}
		if err := r.WaitFor(ctx, res.LastPosition()); err != nil {
			t.Fatal(err)
		}
		if p.applied.Load() != 2*before {
			t.Errorf("applied %d events after the replay, want %d", p.applied.Load(), 2*before)
		}
		assertCounts(t, d, j)
		if err := r.Reset(ctx, "nope"); !errors.Is(err, projection.ErrUnknownProjection) {
			t.Errorf("reset unknown = %v", err)
		}
	})
}

// A runner restarted on the same database resumes from its checkpoint; two runners
// feeding the same projection (two nodes) apply every event once between them.
func TestRunnerResumesAndSharesCheckpoint(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		j := setup(t, d)
		append1 := func(i int) engine.AppendResult {
			res, err := j.Append(ctx, 1, fmt.Sprintf("ticket/%d", i%9), engine.AnyVersion, engine.EventData{Type: "e", Data: []byte(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		first := &counts{name: "counts"}
		r1 := newRunner(t, d, j, first)
		var res engine.AppendResult
		for i := range 20 {
			res = append1(i)
		}
		if err := r1.WaitFor(ctx, res.LastPosition()); err != nil {
			t.Fatal(err)
		}
		r1.Close()
		if err := r1.WaitFor(ctx, 1); !errors.Is(err, projection.ErrClosed) {
			t.Errorf("WaitFor after Close = %v", err)
		}

		for i := range 20 {
			append1(i)
		}
		a, b := &counts{name: "counts"}, &counts{name: "counts"}
		ra, rb := newRunner(t, d, j, a), newRunner(t, d, j, b)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 30 {
					append1(w*30 + i)
				}
			})
		}
		wg.Wait()
		head, _ := j.Head(ctx)
		for _, r := range []*projection.Runner{ra, rb} {
			if err := r.WaitFor(ctx, head); err != nil {
				t.Fatal(err)
			}
		}
		if got := a.applied.Load() + b.applied.Load(); got != head-20 {
			t.Errorf("the two runners applied %d events (%d + %d), want %d", got, a.applied.Load(), b.applied.Load(), head-20)
		}
		assertCounts(t, d, j)
	})
}

func TestNewRejectsDuplicateNames(t *testing.T) {
	d := dbtest.Open(t, db.SQLite)
	j := setup(t, d)
	if _, err := projection.New(d, j, projection.Config{}, &counts{name: "x"}, &counts{name: "x"}); err == nil {
		t.Error("New accepted two projections named x")
	}
	if _, err := projection.New(d, j, projection.Config{}, &counts{name: ""}); err == nil {
		t.Error("New accepted an empty name")
	}
}

// durabilityProbe records the synchronous_commit setting its transactions run with.
type durabilityProbe struct {
	mu   sync.Mutex
	seen []string
}

func (p *durabilityProbe) Name() string { return "probe" }

func (p *durabilityProbe) Apply(ctx context.Context, tx *sql.Tx, _ *db.DB, _ []engine.RecordedEvent) error {
	var v string
	if err := tx.QueryRowContext(ctx, `SHOW synchronous_commit`).Scan(&v); err != nil {
		return err
	}
	p.mu.Lock()
	p.seen = append(p.seen, v)
	p.mu.Unlock()
	return nil
}

func (p *durabilityProbe) Reset(context.Context, *sql.Tx, *db.DB) error { return nil }

// On PostgreSQL a projection's transaction does not wait for its WAL flush (the read
// model is rebuilt from the journal after a crash), while the journal's own appends and
// every other transaction of the pool keep the server's setting.
func TestProjectionCommitsWithoutWaitingForFlush(t *testing.T) {
	ctx := context.Background()
	d, err := db.Open(ctx, dbtest.DurableURL(t, db.Postgres)) // synchronous_commit on
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if _, err := d.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	j := setup(t, d)
	probe := &durabilityProbe{}
	r := newRunner(t, d, j, probe)
	res, err := j.Append(ctx, 1, "s-1", engine.AnyVersion, engine.EventData{Type: "t", Data: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitFor(ctx, res.Positions[0]); err != nil {
		t.Fatal(err)
	}
	probe.mu.Lock()
	seen := append([]string(nil), probe.seen...)
	probe.mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the projection applied nothing")
	}
	for _, v := range seen {
		if v != "off" {
			t.Fatalf("projection transaction ran with synchronous_commit=%s, want off", v)
		}
	}
	var outside string
	if err := d.SQL.QueryRowContext(ctx, `SHOW synchronous_commit`).Scan(&outside); err != nil {
		t.Fatal(err)
	}
	if outside != "on" {
		t.Fatalf("outside the projection synchronous_commit=%s, want on (SET LOCAL leaked?)", outside)
	}
}

// refuser is a projection that never applies anything.
type refuser struct{}

func (refuser) Name() string { return "refuser" }

func (refuser) Apply(context.Context, *sql.Tx, *db.DB, []engine.RecordedEvent) error {
	return errors.New("refused")
}

// Only waits for the named projections alone: a projection that never applies holds
// back WaitFor, not Only of the others. An unknown name is refused.
func TestRunnerOnlyWaitsForTheNamedProjections(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		j := setup(t, d)
		r := newRunner(t, d, j, &counts{name: "counts"}, refuser{})
		res, err := j.Append(ctx, 1, "ticket/1", engine.AnyVersion, engine.EventData{Type: "e", Data: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		some, err := r.Only("counts")
		if err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = some.WaitFor(wctx, res.LastPosition())
		cancel()
		if err != nil || count(t, d, "ticket/1") != 1 {
			t.Fatalf("Only(counts).WaitFor = %v, counted %d", err, count(t, d, "ticket/1"))
		}
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		err = r.WaitFor(short, res.LastPosition())
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "refuser at 0") {
			t.Errorf("WaitFor with a refusing projection = %v, want a deadline naming it", err)
		}
		if _, err := r.Only("counts", "nope"); !errors.Is(err, projection.ErrUnknownProjection) {
			t.Errorf("Only of an unknown projection = %v", err)
		}
	})
}
