package db_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func TestMigrationsSameVersionsInBothDialects(t *testing.T) {
	lite, err := db.Migrations(db.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := db.Migrations(db.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	names := func(ms []db.Migration) (out []string) {
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	if !slices.Equal(names(lite), names(pg)) {
		t.Fatalf("sqlite migrations %v differ from postgres %v", names(lite), names(pg))
	}
	if len(lite) == 0 {
		t.Fatal("no migrations found")
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ctx := context.Background()
			d, err := db.Open(ctx, dbtest.URL(t, dialect))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			first, err := d.Migrate(ctx)
			if err != nil {
				t.Fatal(err)
			}
			all, _ := db.Migrations(dialect)
			if len(first) != len(all) {
				t.Fatalf("first run applied %v, want all %d", first, len(all))
			}
			again, err := d.Migrate(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(again) != 0 {
				t.Fatalf("second run applied %v, want none", again)
			}
		})
	}
}

func TestIDsUniqueAcrossAllocators(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		// Two allocators stand for two nodes sharing one database.
		a, b := db.NewIDs(d, 7), db.NewIDs(d, 5)
		var mu sync.Mutex
		seen := map[int64]bool{}
		var wg sync.WaitGroup
		for _, alloc := range []*db.IDs{a, b, a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 50 {
					id, err := alloc.Next(ctx, "ticket")
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if seen[id] {
						t.Errorf("id %d handed out twice", id)
					}
					seen[id] = true
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(seen) != 200 {
			t.Fatalf("got %d ids, want 200", len(seen))
		}
		other, err := a.Next(ctx, "message")
		if err != nil {
			t.Fatal(err)
		}
		if other != 1 {
			t.Fatalf("first id of a new name = %d, want 1", other)
		}
	})
}

func TestOpenRejectsUnknownScheme(t *testing.T) {
	if _, err := db.Open(context.Background(), "mysql://root@localhost/x"); err == nil {
		t.Fatal("mysql URL accepted")
	}
}

func TestIsUniqueViolation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		dbtest.MustExec(t, d, `CREATE TABLE u (k TEXT PRIMARY KEY)`)
		dbtest.MustExec(t, d, `INSERT INTO u VALUES ('a')`)
		_, err := d.SQL.Exec(`INSERT INTO u VALUES ('a')`)
		if !db.IsUniqueViolation(err) {
			t.Fatalf("duplicate insert error %v not seen as unique violation", err)
		}
		if db.IsUniqueViolation(nil) {
			t.Fatal("nil is not a violation")
		}
	})
}

// The allocator reserves a name's next block while half of the current one is left,
// so the hot path does not wait for the database when a block runs out: after the
// reservation ahead came back, ids follow on with a context that can no longer reach
// the database.
func TestIDsReserveTheNextBlockAhead(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		ids := db.NewIDs(d, 10)
		var got []int64
		take := func(ctx context.Context, n int) {
			t.Helper()
			for range n {
				id, err := ids.Next(ctx, "message")
				if err != nil {
					t.Fatalf("id %d: %v", len(got)+1, err)
				}
				got = append(got, id)
			}
		}
		take(ctx, 10) // 1..10: the fifth leaves half the block, and the next is reserved
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		// The 11th comes from the block reserved ahead, so a context that cannot
		// reach the database gets it once that reservation is back (until then
		// Next waits for it and gives up with the context).
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			id, err := ids.Next(cancelled, "message")
			if err == nil {
				got = append(got, id)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("11th id without the database: %v", err)
			}
		}
		take(cancelled, 9) // 12..20: the rest of the block reserved ahead
		for i, id := range got {
			if id != int64(i+1) {
				t.Fatalf("ids %v, want 1..20 in order", got)
			}
		}
	})
}

// Analyze gives the schema's freshly loaded tables their statistics: without them
// PostgreSQL plans as for an empty table.
func TestAnalyzeGivesStatistics(t *testing.T) {
	d := dbtest.Open(t, db.Postgres)
	ctx := context.Background()
	dbtest.MustExec(t, d, `CREATE TABLE loaded AS SELECT g AS id FROM generate_series(1, 5000) AS g`)
	tuples := func() (n float64) {
		t.Helper()
		if err := d.Pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'loaded'::regclass`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := tuples(); n > 0 {
		t.Fatalf("statistics before Analyze: %v tuples", n)
	}
	if err := d.Analyze(ctx); err != nil {
		t.Fatal(err)
	}
	if n := tuples(); n != 5000 {
		t.Fatalf("statistics after Analyze: %v tuples, want 5000", n)
	}
	if err := dbtest.Open(t, db.SQLite).Analyze(ctx); err != nil {
		t.Fatalf("Analyze on SQLite: %v", err)
	}
}
