package dashboard

import (
	"context"
	"testing"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// On PostgreSQL a counter's increment is a HOT update: it neither leaves a new
// version to index nor touches an index, so a busy tenant's counters do not bloat
// dash_buckets and its indexes. The transaction's own statistics count the updates.
func TestIncrementsAreHOT(t *testing.T) {
	d := dbtest.Open(t, db.Postgres)
	ctx := context.Background()
	tx, err := d.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // the test writes nothing to keep
	keys := []Key{
		{Company: 1, Grain: GrainDay, Period: 20000, Metric: MetricMessagesIn, Queue: 3},
		{Company: 1, Grain: GrainMonth, Period: 24300, Metric: MetricMessagesIn, Queue: 3},
		{Company: 1, Grain: GrainDay, Period: 20000, Metric: MetricOpened, User: 7, Channel: "whatsapp"},
	}
	// A page holds about 90 versions of a row: 30 increments of three rows fit in
	// one page whether or not pruning keeps up, so only the indexes could stop HOT.
	const rounds = 30
	for range rounds {
		deltas := Deltas{}
		for _, k := range keys {
			deltas[k]++
		}
		if err := WriteDeltas(ctx, tx, db.Postgres, deltas); err != nil {
			t.Fatal(err)
		}
	}
	var upd, hot int
	if err := tx.QueryRowContext(ctx, `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables
		WHERE relid = 'dash_buckets'::regclass`).Scan(&upd, &hot); err != nil {
		t.Fatal(err)
	}
	if want := (rounds - 1) * len(keys); upd != want || hot != upd {
		t.Errorf("%d updates, %d of them HOT; want %d, all HOT", upd, hot, want)
	}
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT SUM(n) FROM dash_buckets`).Scan(&n); err != nil || n != rounds*int64(len(keys)) {
		t.Errorf("counted %d, %v; want %d", n, err, rounds*len(keys))
	}
}
