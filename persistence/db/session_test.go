package db_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// withParam returns raw with the query parameter k=v added.
func withParam(t *testing.T, raw, k, v string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(k, v)
	u.RawQuery = q.Encode()
	return u.String()
}

func TestPostgresSessionsStartWithTheirLimits(t *testing.T) {
	ctx := context.Background()
	raw := withParam(t, dbtest.URL(t, db.Postgres), "statement_timeout", "45s")
	d, err := db.Open(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	want := map[string]string{}
	for k, v := range db.SessionLimits {
		want[k] = v
	}
	want["statement_timeout"] = "45s" // the URL's own value wins
	for k, v := range want {
		var got string
		if err := d.SQL.QueryRowContext(ctx, `SELECT current_setting($1)`, k).Scan(&got); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

// A transaction left idle — its node stopped or cut off while holding a lock — is
// ended by the server, and the lock with it: another session takes it.
func TestPostgresIdleTransactionLosesItsLocks(t *testing.T) {
	ctx := context.Background()
	// The default, shortened so the test need not wait its 10 s (not parallel: the
	// map is the package's).
	const param = "idle_in_transaction_session_timeout"
	was := db.SessionLimits[param]
	db.SessionLimits[param] = "1s"
	d, err := db.Open(ctx, dbtest.URL(t, db.Postgres))
	db.SessionLimits[param] = was
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const key = 0x5e55_1011
	tx, err := d.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, key); err != nil {
		t.Fatal(err)
	}
	// The transaction now idles. Another session polls for the lock; it must get it
	// once the server ended the idle one (after about a second), long before this
	// generous deadline.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var got bool
		if err := d.SQL.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got {
			break // held by a pooled session until d closes
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle transaction still holds its lock after 60 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := tx.ExecContext(ctx, `SELECT 1`); err == nil {
		t.Fatal("the idle transaction's session still answers; want it ended by the server")
	}
}
