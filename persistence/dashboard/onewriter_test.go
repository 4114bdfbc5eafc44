package dashboard

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
)

// TestTransactionsReadThroughThemselves: on SQLite a transaction holds the single
// write lock, and the pool's other connections may all be held by writers waiting
// for it (busy_timeout), so a read on the pool from inside a transaction waits for
// that timeout. Here the pool has one connection: a batch that asked a new tenant's
// zone on the pool, or a rebuild that read the journal or the setting on it inside
// its transaction, would wait for the connection it holds and fail on the deadline.
func TestTransactionsReadThroughThemselves(t *testing.T) {
	d := dbtest.Open(t, db.SQLite)
	twoTenants(t, d)
	j, err := journal.New(d, journal.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 16))
	writeRandomJournal(t, j, r, 1, 0, 10)
	writeRandomJournal(t, j, r, 2, 1000, 10)
	d.SQL.SetMaxOpenConns(1)

	zones := map[engine.ID]*time.Location{1: mustZone(t, DefaultZone), 2: mustZone(t, DefaultZone)}
	// The zone is read as cmd/atende reads it: a query through q.
	zoneOf := func(ctx context.Context, q db.Querier, c engine.ID) (*time.Location, error) {
		var one int
		if err := q.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
			return nil, err
		}
		return zones[c], nil
	}
	p, err := NewProjection(zoneOf, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	evs, err := j.ReadAll(ctx, 0, 1000)
	if err != nil || len(evs) == 0 {
		t.Fatalf("journal: %d events, %v", len(evs), err)
	}
	var last int64
	for _, ev := range evs {
		last = ev.Position
	}
	if err := d.Tx(ctx, func(tx *sql.Tx) error {
		if err := p.Apply(ctx, tx, d, evs); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO projection_checkpoints (name, position) VALUES ($1, $2)`, ProjectionName, last)
		return err
	}); err != nil {
		t.Fatalf("first batch of two new tenants: %v", err)
	}
	var n int
	if err := d.SQL.QueryRowContext(ctx, `SELECT COUNT(*) FROM dash_zones`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("dash_zones rows after the first batch: %d, %v; want 2", n, err)
	}

	zones[2] = mustZone(t, "Asia/Tokyo")
	// More of tenant 2 folded between the rebuild's re-fold and its transaction: the
	// transaction reads those events itself.
	rezoneRefolded = func() {
		writeRandomJournal(t, j, r, 2, 1300, 5)
		more, err := j.ReadAll(ctx, last, 1000)
		if err != nil {
			t.Error(err)
			return
		}
		if err := d.Tx(ctx, func(tx *sql.Tx) error {
			if err := p.Apply(ctx, tx, d, more); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `UPDATE projection_checkpoints SET position = $2 WHERE name = $1`, ProjectionName, more[len(more)-1].Position)
			return err
		}); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { rezoneRefolded = nil })
	done, err := p.Rezone(ctx, d, j, 2)
	if err != nil || !done {
		t.Fatalf("rezone of tenant 2: rebuilt %v, %v", done, err)
	}
	want, _ := recount(t, j, zones)
	diff(t, storedBuckets(t, d), want)
}
