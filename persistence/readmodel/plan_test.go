package readmodel_test

import (
	"context"
	"encoding/json"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
)

// TestQueueFilterWalksReadAPage checks, on PostgreSQL with analysed statistics, that
// the first page of the queue-filtered lists is read from indexes in list order: the
// plan (EXPLAIN ANALYZE of the walks' UNION ALL, as ListTickets runs it) scans no
// tickets sequentially and reads about a page per walk, however many tickets the
// caller holds in the filter's queues. The caller, a supervisor, holds 6,000 open
// tickets in queues 1–3 and six in queue 10; a walk of the supervisor's tickets that
// tested the queue read all 6,000 to find those six.
func TestQueueFilterWalksReadAPage(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t, db.Postgres)
	for _, sql := range []string{
		// 48k tickets: every fourth open; of those, half the supervisor's (user 3).
		`INSERT INTO tickets (id, company_id, uuid, status, user_id, queue_id, contact_id, channel, created_at,
			updated_at, version)
		SELECT g, 1, md5(g::text), CASE WHEN g % 4 = 0 THEN 'open' ELSE 'closed' END,
			CASE WHEN g % 8 = 0 THEN 3 ELSE 5 + g % 50 END,
			CASE WHEN g % 8 <> 0 THEN 1 + g % 20 WHEN g % 8000 = 0 THEN 10 ELSE 1 + (g / 8) % 3 END,
			1 + g % 1000, 'whatsapp', now() - g * interval '1 minute', now() - g * interval '1 minute', 1
		FROM generate_series(1, 48000) g`,
		`VACUUM ANALYZE tickets`,
	} {
		if _, err := d.SQL.ExecContext(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	q, err := readmodel.NewQueries(d, readmodel.Config{})
	if err != nil {
		t.Fatal(err)
	}
	superv := engine.Principal{UserID: 3, CompanyID: 1, Profile: engine.ProfileSuperv, QueueIDs: []engine.ID{1, 2, 3}}
	admin := engine.Principal{UserID: 1, CompanyID: 1, Profile: engine.ProfileAdmin}
	held := []engine.ID{1, 2, 3}
	cases := []struct {
		name string
		p    engine.Principal
		q    engine.TicketQuery
	}{
		{"open show-all, queue filter", superv, engine.TicketQuery{Status: engine.StatusOpen, ShowAll: true, QueueIDs: held}},
		{"closed, queue filter", superv, engine.TicketQuery{Status: engine.StatusClosed, QueueIDs: held}},
		{"every status, queue filter", superv, engine.TicketQuery{ShowAll: true, QueueIDs: held}},
		{"attendant and queue filters", admin, engine.TicketQuery{Status: engine.StatusOpen, ShowAll: true,
			UserIDs: []engine.ID{3}, QueueIDs: []engine.ID{10}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			query, args, err := readmodel.FirstWalkQuery(q, c.p, c.q)
			if err != nil {
				t.Fatal(err)
			}
			tx, err := d.SQL.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback() }()
			// As the read model's reads run (Queries.read).
			if _, err := tx.ExecContext(ctx, `SET LOCAL max_parallel_workers_per_gather = 0`); err != nil {
				t.Fatal(err)
			}
			var raw []byte
			if err := tx.QueryRowContext(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) `+query, args...).Scan(&raw); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			var plans []struct{ Plan planNode }
			if err := json.Unmarshal(raw, &plans); err != nil || len(plans) != 1 {
				t.Fatalf("unreadable plan %s: %v", raw, err)
			}
			read, walks := 0.0, 0
			var visit func(n planNode)
			visit = func(n planNode) {
				if n.Relation == "tickets" {
					if n.Type == "Seq Scan" {
						t.Errorf("sequential scan of tickets:\n%s", raw)
					}
					read += (n.Rows + n.Removed) * n.Loops
					walks++
				}
				for _, c := range n.Plans {
					visit(c)
				}
			}
			visit(plans[0].Plan)
			// A page (41 keys) per walk, and slack.
			if limit := float64(walks*(engine.TicketPageSize+1) + 200); read > limit {
				t.Errorf("the walks read %.0f tickets, want at most %.0f:\n%s", read, limit, raw)
			}
		})
	}
}

// planNode is what the test reads of a node of EXPLAIN (ANALYZE, FORMAT JSON).
type planNode struct {
	Type     string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Rows     float64    `json:"Actual Rows"`
	Loops    float64    `json:"Actual Loops"`
	Removed  float64    `json:"Rows Removed by Filter"`
	Index    string     `json:"Index Name"`
	Hit      int        `json:"Shared Hit Blocks"`
	Read     int        `json:"Shared Read Blocks"`
	Plans    []planNode `json:"Plans"`
}
