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

func TestSendAttemptsRecordForgetAndPrune(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		w.company(1)
		w.contact(1, 5, "Maria", "5565999990001", "")
		w.open(1, 10, 5, 0, 7, "p10") // on connection 1
		w.receive(10, "Olá")
		pending := w.send(10, 7, "sem resposta", 0)
		acked := w.send(10, 7, "aceita", 0)
		w.do(10, engine.AckMessage{MessageID: acked, Ack: engine.AckSent})
		failed := w.send(10, 7, "recusada", 0)
		w.do(10, engine.FailMessage{MessageID: failed, Reason: "x"})

		ctx := context.Background()
		s := readmodel.NewSendAttempts(d)
		old := time.Now().Add(-2 * time.Hour)
		for _, id := range []engine.ID{pending, acked, failed} {
			for range 2 { // a second record is a no-op
				if err := s.RecordAttempt(ctx, 1, id, old); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.RecordAttempt(ctx, 2, pending, old); err != nil { // another connection
			t.Fatal(err)
		}
		got, err := s.Attempted(ctx, 1, []engine.ID{pending, acked, failed, 999})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || !got[pending] || !got[acked] || !got[failed] {
			t.Fatalf("attempted %v", got)
		}
		// Only old rows of messages that no longer wait go; the pending one stays.
		n, err := s.Prune(ctx, 1, time.Now().Add(-time.Hour))
		if err != nil || n != 2 {
			t.Fatalf("pruned %d (%v), want 2", n, err)
		}
		if got, _ = s.Attempted(ctx, 1, []engine.ID{pending, acked, failed}); len(got) != 1 || !got[pending] {
			t.Fatalf("after prune %v, want only %d", got, pending)
		}
		// Recent rows are kept whatever their message says.
		if err := s.RecordAttempt(ctx, 1, acked, time.Now()); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Prune(ctx, 1, time.Now().Add(-time.Hour)); err != nil || n != 0 {
			t.Fatalf("pruned %d recent rows (%v)", n, err)
		}
		if err := s.ForgetAttempt(ctx, 1, pending); err != nil {
			t.Fatal(err)
		}
		if got, _ = s.Attempted(ctx, 1, []engine.ID{pending}); len(got) != 0 {
			t.Fatalf("forgotten attempt still there: %v", got)
		}
		if got, _ = s.Attempted(ctx, 2, []engine.ID{pending}); !got[pending] {
			t.Fatal("another connection's attempt was touched")
		}
	})
}

// The cost of the attempt written before each send on a channel without idempotency
// (one INSERT … ON CONFLICT DO NOTHING, autocommit):
//
//	go test -run '^$' -bench SendAttempt -benchtime 2000x ./persistence/readmodel/
//
// 2-core shared test machine: PostgreSQL (local, synchronous_commit on) 0.24 ms,
// SQLite (WAL, synchronous FULL) 0.18 ms per write.
// Attempted answers for any number of ids (asked in chunks), one id, or none.
func TestSendAttemptsAttemptedMany(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := readmodel.NewSendAttempts(d)
		var all []engine.ID
		want := map[engine.ID]bool{}
		for id := engine.ID(1); id <= 2100; id++ {
			all = append(all, id)
			if id%7 == 0 {
				want[id] = true
				if err := s.RecordAttempt(ctx, 1, id, time.Now()); err != nil {
					t.Fatal(err)
				}
			}
		}
		got, err := s.Attempted(ctx, 1, all)
		if err != nil || len(got) != len(want) {
			t.Fatalf("Attempted over %d ids: %d found, %v; want %d", len(all), len(got), err, len(want))
		}
		for id := range want {
			if !got[id] {
				t.Fatalf("attempt of %d not found", id)
			}
		}
		if got, err = s.Attempted(ctx, 1, []engine.ID{14}); err != nil || len(got) != 1 || !got[14] {
			t.Fatalf("one id: %v %v", got, err)
		}
		if got, err = s.Attempted(ctx, 1, nil); err != nil || len(got) != 0 {
			t.Fatalf("no ids: %v %v", got, err)
		}
	})
}

func BenchmarkSendAttemptRecord(b *testing.B) {
	for _, dialect := range []db.Dialect{db.Postgres, db.SQLite} {
		b.Run(string(dialect), func(b *testing.B) {
			// synchronous_commit on: the write must be durable before the send.
			d, err := db.Open(context.Background(), dbtest.DurableURL(b, dialect))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { d.Close() })
			if _, err := d.Migrate(context.Background()); err != nil {
				b.Fatal(err)
			}
			s := readmodel.NewSendAttempts(d)
			ctx, at := context.Background(), time.Now()
			b.ResetTimer()
			for i := range b.N {
				if err := s.RecordAttempt(ctx, 1, engine.ID(i+1), at); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
