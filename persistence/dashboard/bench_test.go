package dashboard

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/rs/zerolog"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// benchTickets is the size of the benchmark's tenant.
const benchTickets = 1_000_000

// seedBench builds the read model of a tenant with benchTickets tickets over two
// years (2025–2026), 10 queues of 5 attendants, 3 channels: each ticket opens pending,
// is accepted, gets 1–4 customer messages and 1–3 replies, and is resolved (85%) and
// rated (30% of those). The events are folded by the real Folder in memory and the
// resulting counters written once with WriteDeltas — the rows the projection would
// have written, without replaying a journal of ten million events.
func seedBench(b *testing.B, d *db.DB, loc *time.Location) int {
	b.Helper()
	benchOnce.Do(func() { benchDeltas = foldBench(loc) })
	dbtest.MustExec(b, d, `INSERT INTO companies (id, name) VALUES (1, 'Bench')`)
	dbtest.MustExec(b, d, `INSERT INTO dash_zones (company_id, zone) VALUES (1, $1)`, loc.String())
	if err := d.Tx(context.Background(), func(tx *sql.Tx) error { return WriteDeltas(context.Background(), tx, d.Dialect, benchDeltas) }); err != nil {
		b.Fatal(err)
	}
	return len(benchDeltas)
}

// The folded tenant, shared by the dialects' runs.
var (
	benchOnce   sync.Once
	benchDeltas Deltas
)

func foldBench(loc *time.Location) Deltas {
	r := rand.New(rand.NewPCG(7, 7))
	f := NewFolder(loc)
	start := time.Date(2025, 1, 1, 8, 0, 0, 0, loc)
	channels := []string{engine.ChannelWhatsApp, engine.ChannelTelegram, engine.ChannelSocket}
	var msg engine.ID
	for i := 0; i < benchTickets; i++ {
		t := &Ticket{ID: engine.ID(i + 1)}
		q := engine.ID(1 + r.IntN(10))
		u := q*10 + engine.ID(r.IntN(5))
		at := start.Add(time.Duration(r.Int64N(int64(720 * 24 * time.Hour)))) // within 2025–2026, replies included
		v := int64(0)
		fold := func(ev engine.TicketEvent) { v++; f.Fold(t, 1, v, ev) }
		fold(engine.TicketOpened{TicketID: t.ID, CompanyID: 1, QueueID: q, Status: engine.StatusPending,
			Channel: channels[r.IntN(3)], At: at})
		at = at.Add(time.Duration(r.IntN(600)) * time.Second)
		fold(engine.TicketAccepted{UserID: u, QueueID: q, At: at})
		for k := r.IntN(4); k >= 0; k-- {
			msg++
			at = at.Add(time.Duration(1+r.IntN(300)) * time.Second)
			fold(engine.TicketMessageReceived{MessageID: msg, At: at})
		}
		for k := r.IntN(3); k >= 0; k-- {
			msg++
			at = at.Add(time.Duration(1+r.IntN(900)) * time.Second)
			fold(engine.TicketMessageSent{MessageID: msg, SenderID: u, At: at})
		}
		if r.IntN(100) < 85 {
			at = at.Add(time.Duration(r.IntN(7200)) * time.Second)
			fold(engine.TicketResolved{UserID: u, QueueID: q, At: at})
			if r.IntN(100) < 30 {
				fold(engine.TicketRated{Score: 1 + r.IntN(3), QueueID: q, UserID: u, At: at.Add(time.Minute)})
			}
		}
	}
	return f.Deltas
}

// BenchmarkDashboardQuery measures GET /dashboard's query at 1,000,000 tickets: the p95
// of each range shape (a day to ten years, aligned to months or not, with and
// without a queue filter), 30 queries per shape, on both databases.
func BenchmarkDashboardQuery(b *testing.B) {
	for _, dialect := range dbtest.Dialects {
		b.Run(string(dialect), func(b *testing.B) {
			d := dbtest.Open(b, dialect)
			loc, err := time.LoadLocation(DefaultZone)
			if err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			rows := seedBench(b, d, loc)
			if dialect == db.Postgres {
				dbtest.MustExec(b, d, `ANALYZE dash_buckets`)
			}
			b.Logf("%s: %d bucket rows seeded in %s", dialect, rows, time.Since(t0).Round(time.Second))
			p, err := NewProjection(FixedZone(loc), zerolog.Nop())
			if err != nil {
				b.Fatal(err)
			}
			q := NewQueries(d, p.BucketZone(d)) // reads the tenant's zone as GET /dashboard does
			day := func(y int, m time.Month, dd int) time.Time { return time.Date(y, m, dd, 0, 0, 0, 0, time.UTC) }
			shapes := []struct {
				name     string
				from, to time.Time
				queues   []engine.ID
			}{
				{"day", day(2026, 5, 14), day(2026, 5, 14), nil},
				{"week", day(2026, 5, 11), day(2026, 5, 17), nil},
				{"month", day(2026, 5, 1), day(2026, 5, 31), nil},
				{"30days-unaligned", day(2026, 4, 15), day(2026, 5, 14), nil},
				{"year", day(2025, 1, 1), day(2025, 12, 31), nil},
				{"2years-unaligned", day(2025, 1, 15), day(2026, 12, 14), nil},
				{"10years", day(2017, 1, 1), day(2026, 12, 31), nil},
				{"10years-unaligned", day(2016, 12, 17), day(2026, 12, 14), nil},
				{"2years-unaligned-queue", day(2025, 1, 15), day(2026, 12, 14), []engine.ID{3}},
			}
			var all []time.Duration
			p95 := map[string]time.Duration{}
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				for _, s := range shapes {
					var times []time.Duration
					for k := 0; k < 30; k++ {
						st := time.Now()
						out, err := q.Dashboard(context.Background(), 1, engine.DashboardFilter{From: s.from, To: s.to, QueueIDs: s.queues})
						if err != nil {
							b.Fatal(err)
						}
						times = append(times, time.Since(st))
						if s.name == "10years" && out.Opened != benchTickets {
							b.Fatalf("ten years count %d tickets, want %d", out.Opened, benchTickets)
						}
					}
					all = append(all, times...)
					p95[s.name] = percentile(times, 0.95)
				}
			}
			b.StopTimer()
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(percentile(all, 0.95)), "p95-ms")
			b.ReportMetric(ms(percentile(all, 0.5)), "p50-ms")
			b.ReportMetric(ms(p95["day"]), "day-p95-ms")
			b.ReportMetric(ms(p95["10years"]), "10y-p95-ms")
			b.ReportMetric(ms(p95["10years-unaligned"]), "10y-unaligned-p95-ms")
			b.ReportMetric(float64(rows), "bucket-rows")
			b.ReportMetric(benchTickets, "tickets")
			var line string
			for _, s := range shapes {
				line += fmt.Sprintf(" %s=%.1fms", s.name, ms(p95[s.name]))
			}
			b.Logf("p95 per shape:%s", line)
		})
	}
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}
