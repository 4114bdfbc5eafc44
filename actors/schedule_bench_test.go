package actors

import (
	"context"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/jobs"
	"atende/persistence/schedule"
	"atende/persistence/schedule/schedbench"
	"atende/persistence/store"
)

// stampedSender is the real ScheduleSender with a stamp: when each message id came
// back from the ticket actor (recorded as ours, queued on the connection's outbound
// path), which is when the schedule turns sent.
type stampedSender struct {
	ScheduleSender
	schedbench.Stamps
}

func (s *stampedSender) DeliverScheduled(ctx context.Context, d engine.ScheduledDelivery) (engine.ID, error) {
	id, err := s.ScheduleSender.DeliverScheduled(ctx, d)
	if err == nil {
		s.Stamp(d.MessageID)
	}
	return id, err
}

// BenchmarkScheduleFireRealSend is B9 through the real send path: one node, PostgreSQL
// with durable commits, 100,000 pending schedules of which 10,000 fall due (at once,
// or 1,000 a second), each fired by River into actors.ScheduleSender → the ticket
// actor (journal append, a new ticket for each customer's first message) → the
// connection actor's outbound lane → a recording channel. 1,000 customers get 10
// messages each. Reports fired/s and lateness (handed to the ticket − sendAt), and
// how many reached the channel by the end.
func BenchmarkScheduleFireRealSend(b *testing.B) {
	for _, c := range schedbench.Cases {
		b.Run(c.Name, func(b *testing.B) {
			for range b.N {
				benchRealFire(b, schedbench.Pending, c.Due, 1000, c.Spread)
			}
		})
	}
}

func benchRealFire(b *testing.B, pending, due, customers int, spread time.Duration) {
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
	_, ch := r.startConnection(b, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket, IsDefault: true})
	dbtest.MustExec(b, d, `INSERT INTO users (id, company_id, name, name_key, search, email, password_hash, profile,
		created_at, updated_at) VALUES (10, 1, 'Ana', 'ana', 'ana', 'ana@a.test', 'x', 'user', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`)
	dbtest.MustExec(b, d, `INSERT INTO contacts (id, company_id, name, name_norm, number, search, profile_pic_url, created_at, updated_at)
		SELECT 5000000 + g, 1, 'Cliente ' || g, 'cliente ' || g, 'webchat:bench' || g, 'cliente ' || g, '', now(), now()
		FROM generate_series(1, $1) g`, customers)
	sender := &stampedSender{ScheduleSender: ScheduleSender{Node: r.node, Guard: r.guard, Users: store.NewUsers(d, nil), Connections: r.conns}}
	s, err := schedule.New(d, schedule.Config{IDs: db.NewIDs(d, 1000), Contacts: r.contacts, Sender: sender,
		Settings: store.NewSettings(d, nil)})
	if err != nil {
		b.Fatal(err)
	}
	// Seed rows and their River jobs in two statements (the jobs as River's own insert
	// writes them: kind, queue, attempts, scheduled_at). Schedule g is due at
	// start + (g-1)·spread/due when g ≤ due, else a day later.
	start := time.Now().Add(30 * time.Second)
	spreadMicros := int64(0)
	if spread > 0 {
		spreadMicros = spread.Microseconds() / int64(due)
	}
	now := time.Now().UnixMicro()
	dbtest.MustExec(b, d, `INSERT INTO schedules (id, company_id, kind, contact_id, message, user_id, send_at,
		message_id, created_at, updated_at)
		SELECT g, 1, 'message', 5000000 + 1 + (g % $1), 'Olá {{firstName}}, {{ms}}!', 10, 0, 1000000 + g, $2, $2
		FROM generate_series(1, $3) g`, customers, now, pending)
	dbtest.MustExec(b, d, `INSERT INTO river_job (args, kind, max_attempts, priority, queue, scheduled_at, state)
		SELECT jsonb_build_object('companyId', 1, 'scheduleId', g), 'schedule.fire', $1, 1, 'schedules',
			CASE WHEN g <= $2 THEN $3::timestamptz + make_interval(secs => (g - 1) * $4 / 1000000.0)
			ELSE $3::timestamptz + interval '1 day' END, 'scheduled'
		FROM generate_series(1, $5) g`, schedule.MaxAttempts, due, start, spreadMicros, pending)
	when := func(msg engine.ID) time.Time {
		return start.Add(time.Duration(int64(msg-1000001)*spreadMicros) * time.Microsecond)
	}
	schedbench.Settle(b, d, start)
	// The node's River client as cmd/atende builds it (no settings of its own).
	worker, err := jobs.New(d, jobs.Config{Kinds: []jobs.Kinds{s.Kinds()}})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if err := worker.Start(ctx); err != nil {
		b.Fatal(err)
	}
	sender.Wait(due)
	b.StopTimer()
	stopCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_ = worker.Stop(stopCtx)
	ch.mu.Lock()
	reached := len(ch.sent)
	ch.mu.Unlock()

	b.ReportMetric(float64(reached), "channel-sent")
	sender.Report(b, start, func(id engine.ID) (time.Time, bool) {
		return when(id), id > 1000000 && id <= engine.ID(1000000+due)
	}, due, pending)
}
