package node

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
)

// CompactJournal archives nothing until every read model has a checkpoint, and then
// only what lies below the lowest: the demo conversations, once the projections
// have applied them, become archived streams, and a second run finds nothing left.
func TestCompactJournalBelowTheReadModels(t *testing.T) {
	ctx := context.Background()
	log := zerolog.Nop()
	cfg := Config{DatabaseURL: dbtest.URL(t, db.Postgres), SeedConversations: true}
	if err := Seed(ctx, cfg, log); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDB(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	j, err := journal.New(d, journal.Config{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()

	if st, err := CompactJournal(ctx, d, j, 0, -1, log); err != nil || st.Streams != 0 {
		t.Fatalf("before the read models started: %+v, %v", st, err)
	}
	if err := CatchUpReadModels(ctx, d, j, log); err != nil {
		t.Fatal(err)
	}
	if st, err := CompactJournal(ctx, d, j, 0, time.Hour, log); err != nil || st.Streams != 0 {
		t.Fatalf("streams written just now compacted with an age of 1h: %+v, %v", st, err)
	}
	st, err := CompactJournal(ctx, d, j, 0, -1, log)
	if err != nil || st.Streams == 0 || st.Events == 0 {
		t.Fatalf("after the read models caught up: %+v, %v", st, err)
	}
	var left int
	if err := d.Pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d events left (%v)", left, err)
	}
	if again, err := CompactJournal(ctx, d, j, 0, -1, log); err != nil || again.Streams != 0 {
		t.Fatalf("second run: %+v, %v", again, err)
	}
	if compactEvery(24*time.Hour) != time.Hour || compactEvery(time.Minute) != time.Minute || compactEvery(time.Hour) != 15*time.Minute {
		t.Error("compactEvery is not a quarter of the age within 1m … 1h")
	}
}
