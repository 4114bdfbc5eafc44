package actors

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/campaign"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/jobs"
	"atende/persistence/schedule"
)

// BenchmarkCampaignSend is B11: one node, PostgreSQL with durable commits, a campaign
// of 100,000 contacts without pacing on one connection, worked by the node's River
// client through the real path — claim, the connection actor (CmdConnectionCampaign),
// the channel (a recording fake), outcomes and progress. Reports sends/s from the
// campaign's start to its end, the node's CPU (user + system) per 1,000 sends, and the
// time the segment took to expand into send rows.
func BenchmarkCampaignSend(b *testing.B) {
	for range b.N {
		benchCampaign(b, 100_000, 1000)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchCampaign(b *testing.B, n, batch int) {
	ctx := context.Background()
	d, err := db.Open(ctx, dbtest.DurableURL(b, db.Postgres))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if err := schedule.Migrate(ctx, d); err != nil {
		b.Fatal(err)
	}
	r := newLiveRig(b, d)
	conn, ch := r.startConnection(b, engine.ConnectionInput{Name: "Vendas", Channel: engine.ChannelSocket, IsDefault: true})
	for start := 0; start < n; start += 1000 {
		var sb strings.Builder
		sb.WriteString(`INSERT INTO contacts (id, company_id, name, name_norm, number, search, created_at, updated_at) VALUES `)
		for i := start; i < min(n, start+1000); i++ {
			if i > start {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, 1, 'Cliente %d', 'cliente', 'webchat:c%d', 'cliente', '2026-11-22T10:00:00Z', '2026-11-22T10:00:00Z')", 1000+i, i, i)
		}
		dbtest.MustExec(b, d, sb.String())
	}
	var ids []engine.ID
	for i := range n {
		ids = append(ids, engine.ID(1000+i))
	}
	s, err := campaign.New(d, campaign.Config{Contacts: r.contacts, Connections: r.conns, Sender: Connections{Node: r.node},
		Interval: -1, Batch: batch})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	expand := time.Now()
	c, err := s.Create(ctx, 1, 0, engine.CampaignInput{Kind: engine.KindCampaign, Name: "bench", ContactIDs: ids, NameFilter: "%",
		ChannelFilter: "%", IncludeDefault: true, SendFrom: []engine.ID{conn.ID}, StartAt: time.Now(),
		Messages: []engine.CampaignMessage{{Body: "Oferta para {{firstName}}"}}})
	if err != nil {
		b.Fatal(err)
	}
	expanded := time.Since(expand)
	cpu0, t0 := cpuTime(), time.Now()
	worker, err := jobs.New(d, jobs.Config{PollInterval: 100 * time.Millisecond, Kinds: []jobs.Kinds{s.Kinds()}})
	if err != nil {
		b.Fatal(err)
	}
	if err := worker.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = worker.Stop(context.Background()) }()
	deadline := time.Now().Add(15 * time.Minute)
	for {
		got, err := s.Get(ctx, 1, c.ID)
		if err != nil {
			b.Fatal(err)
		}
		if got.Status == engine.CampaignFinished {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("not finished: %+v", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	took, cpu := time.Since(t0), cpuTime()-cpu0
	b.StopTimer()
	ch.mu.Lock()
	sent := len(ch.sent)
	ch.mu.Unlock()
	if sent != n {
		b.Fatalf("channel got %d sends, want %d", sent, n)
	}
	b.ReportMetric(float64(n)/took.Seconds(), "sends/s")
	b.ReportMetric(float64(cpu.Milliseconds())*1000/float64(n), "cpu-ms/1k-sends")
	b.ReportMetric(expanded.Seconds(), "expand-s")
}
