package schedule

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/jobs"
	"atende/persistence/schedule/schedbench"
	"atende/persistence/store"
)

// stampSender records when each message id was handed over. It stands for the ticket
// actor: the benchmark measures the timers (claiming due jobs, reading the row,
// recording the outcome), not the channel.
type stampSender struct{ schedbench.Stamps }

func (s *stampSender) DeliverScheduled(_ context.Context, d engine.ScheduledDelivery) (engine.ID, error) {
	s.Stamp(d.MessageID)
	return 1, nil
}

// BenchmarkScheduleFire: one node, PostgreSQL (durable commits), 100,000 pending
// schedules of which `due` fall due over `spread` (all at once when spread is 0); the
// rest wait a day. Reports the due schedules fired per second (from the first due
// moment to the last fire) and their lateness (fire time − sendAt) p50/p99/max.
func BenchmarkScheduleFire(b *testing.B) {
	for _, c := range schedbench.Cases {
		b.Run(c.Name, func(b *testing.B) {
			for range b.N {
				benchFire(b, benchPending, c.Due, c.Spread)
			}
		})
	}
}

func benchFire(b *testing.B, pending, due int, spread time.Duration) {
	ctx := context.Background()
	d, err := db.Open(ctx, dbtest.DurableURL(b, db.Postgres))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if err := Migrate(ctx, d); err != nil {
		b.Fatal(err)
	}
	dbtest.MustExec(b, d, `INSERT INTO companies (id, name) VALUES (1, 'Bench')`)
	contacts := store.NewContacts(d, nil)
	c, err := contacts.Create(ctx, 1, engine.ContactInput{Name: "Maria Bench", Number: "5565999990000"})
	if err != nil {
		b.Fatal(err)
	}
	sender := &stampSender{}
	s, err := New(d, Config{IDs: db.NewIDs(d, 1000), Contacts: contacts, Sender: sender})
	if err != nil {
		b.Fatal(err)
	}
	// The node's River client as cmd/atende builds it (no settings of its own).
	node, err := jobs.New(d, jobs.Config{Kinds: []jobs.Kinds{s.Kinds()}})
	if err != nil {
		b.Fatal(err)
	}
	// Seed: rows in one statement, their jobs through River's batch insert. The rows'
	// send_at stays 0: firing reads the job's time, not the row's.
	start := time.Now().Add(30 * time.Second)
	sendAt := func(i int) time.Time {
		if i >= due {
			return start.Add(24 * time.Hour)
		}
		if spread == 0 {
			return start
		}
		return start.Add(time.Duration(i) * spread / time.Duration(due))
	}
	now := time.Now().UnixMicro()
	dbtest.MustExec(b, d, `INSERT INTO schedules (id, company_id, kind, contact_id, message, user_id, send_at,
		message_id, created_at, updated_at)
		SELECT g, 1, 'message', $1, 'Olá {{firstName}}, {{ms}}!', 1, 0, 1000000 + g, $2, $2 FROM generate_series(1, $3) g`,
		c.ID, now, pending)
	when := make(map[engine.ID]time.Time, due)
	params := make([]river.InsertManyParams, 0, pending)
	for i := range pending {
		at := sendAt(i)
		id := engine.ID(i + 1)
		if i < due {
			when[1000000+id] = at
		}
		params = append(params, river.InsertManyParams{Args: fireArgs{CompanyID: 1, ScheduleID: id},
			InsertOpts: &river.InsertOpts{Queue: queueName, ScheduledAt: at, MaxAttempts: MaxAttempts}})
	}
	for chunk := range slices.Chunk(params, 5000) {
		if err := node.InsertMany(ctx, chunk); err != nil {
			b.Fatal(err)
		}
	}
	schedbench.Settle(b, d, start)
	b.ResetTimer()
	if err := node.Start(ctx); err != nil {
		b.Fatal(err)
	}
	sender.Wait(due)
	b.StopTimer()
	stopCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_ = node.Stop(stopCtx)

	sender.Report(b, start, func(id engine.ID) (time.Time, bool) { w, ok := when[id]; return w, ok }, due, pending)
}

// benchPending is how many schedules are pending during BenchmarkScheduleFire.
var benchPending = schedbench.Pending
