package readmodel_test

import (
	"context"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
)

// BenchmarkWaitPanel: the wait panel's snapshot (GET /supervision/waitpanel) of a tenant
// with 1,000,000 tickets (10% open, 5% pending: 50,000 waiting over 20 queues) and 200
// users, on PostgreSQL, seeded as B6 seeds it (one message a ticket: the panel reads none).
//
//	go test -run '^$' -bench WaitPanel -benchtime 200x ./persistence/readmodel/
func BenchmarkWaitPanel(b *testing.B) {
	ctx := context.Background()
	d := dbtest.Open(b, db.Postgres)
	scale := b6Scale{name: "waitpanel", tickets: 1_000_000, messages: 1_000_000, contacts: 500_000}
	start := time.Now()
	if err := b6Seed(ctx, d, scale, b.Logf); err != nil {
		b.Fatal(err)
	}
	b.Logf("wait panel: %d tickets seeded in %s", scale.tickets, time.Since(start).Round(time.Second))
	q, err := readmodel.NewQueries(d, readmodel.Config{})
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	var panel engine.WaitPanel
	for b.Loop() {
		t0 := time.Now()
		if panel, err = q.WaitPanel(ctx, 1); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b6Report(b, lat)
	b.ReportMetric(float64(panel.Pending), "pending")
	b.ReportMetric(float64(len(panel.Queues)), "queues")
}
