package schedule

import (
	"context"
	"strings"
	"testing"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// TestOutcomeUpdateUsesPrimaryKey: with 20,000 pending schedules of one tenant written
// in one statement and no statistics yet (no ANALYZE, as right after a bulk of new
// schedules), PostgreSQL must find the row of a fire's outcome through the primary
// key or the unique message id, never by walking a partial index of the tenant's
// pending rows (which made each outcome cost a scan of all of them).
func TestOutcomeUpdateUsesPrimaryKey(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t, db.Postgres)
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'Empresa A')`)
	dbtest.MustExec(t, d, `INSERT INTO schedules (id, company_id, kind, contact_id, message, user_id, send_at,
		message_id, created_at, updated_at)
		SELECT g, 1, 'message', 1, 'Olá', 1, 0, 1000000 + g, 0, 0 FROM generate_series(1, 20000) g`)
	tx, err := d.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // the EXPLAIN ANALYZE's update is undone
	rows, err := tx.Query(ctx, `EXPLAIN (ANALYZE, COSTS OFF) `+outcomeSQL, "sent", "", int64(1), int64(1),
		int64(777), int64(1), int64(1000777))
	if err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	p := plan.String()
	if !strings.Contains(p, "schedules_pkey") && !strings.Contains(p, "schedules_message_id_key") {
		t.Fatalf("the outcome UPDATE does not find its row by a unique key:\n%s", p)
	}
	if strings.Contains(p, "_pending") || strings.Contains(p, "Seq Scan") {
		t.Fatalf("the outcome UPDATE scans the tenant's pending rows:\n%s", p)
	}
	// And it did update the one row (inside the rolled-back transaction).
	if !strings.Contains(p, "rows=1 ") {
		t.Fatalf("the outcome UPDATE did not find the row:\n%s", p)
	}
}
