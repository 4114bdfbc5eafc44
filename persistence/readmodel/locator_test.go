package readmodel_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
)

func TestLocatorFindsMessagesByProviderID(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		w.company(1)
		w.contact(1, 5, "Maria", "5565999990001", "")
		w.open(1, 10, 5, 0, 7, "p10") // connection 1
		in := w.receive(10, "Olá")    // provider id "p<id>"
		sent := w.send(10, 7, "Resposta", 0)
		w.do(10, engine.AckMessage{MessageID: sent, Ack: engine.AckSent, ProviderID: "3EB0OUT"})
		w.do(10, engine.AckMessage{MessageID: sent, Ack: engine.AckRead}) // keeps the provider id
		w.do(10, engine.Resolve{})
		// A deleted ticket still holds its messages' provider ids.
		w.open(1, 11, 5, 0, 7, "p11")
		gone := w.receive(11, "apagado depois")
		w.do(11, engine.Delete{})
		// Another connection's ticket with the same provider id is not this one's.
		w.do(12, engine.OpenTicket{TicketID: 12, UUID: "uuid-12", CompanyID: 1, ContactID: 5, ConnectionID: 2,
			Channel: engine.ChannelWhatsApp, UserID: 7, Status: engine.StatusOpen})
		w.do(12, engine.ReceiveMessage{MessageID: 5000, ProviderID: "3EB0OUT", Body: "x"})

		loc := readmodel.NewLocator(d)
		ctx := context.Background()
		for _, tc := range []struct {
			conn        engine.ID
			pid         string
			ticket, msg engine.ID
			wantFound   bool
		}{
			{1, "p" + itoa(in), 10, in, true},
			{1, "3EB0OUT", 10, sent, true},
			{1, "p" + itoa(gone), 11, gone, true},
			{2, "3EB0OUT", 12, 5000, true},
			{2, "p" + itoa(in), 0, 0, false},
			{1, "nope", 0, 0, false},
			{1, "", 0, 0, false},
			{1, "' OR 1=1 --", 0, 0, false},
			{0, "3EB0OUT", 0, 0, false},
			// Hostile ids a web-hook may carry: not found on both databases (PostgreSQL
			// would refuse the query rather than answer).
			{1, "p\x00" + itoa(in), 0, 0, false},
			{1, "\xff\xfe", 0, 0, false},
			{1, strings.Repeat("x", 1<<20), 0, 0, false},
		} {
			tid, mid, found, err := loc.ByProviderID(ctx, tc.conn, tc.pid)
			if err != nil || found != tc.wantFound || tid != tc.ticket || mid != tc.msg {
				t.Errorf("ByProviderID(%d, %q) = %d %d %v %v, want %d %d %v", tc.conn, tc.pid, tid, mid, found, err,
					tc.ticket, tc.msg, tc.wantFound)
			}
		}
	})
}

// The lookup uses the provider index on both dialects: SQLite only when the query
// repeats the partial index's condition, PostgreSQL only when it asks for the hash
// the index keys on.
func TestLocatorUsesTheProviderIndex(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		q := readmodel.LocatorQuery(d.Dialect)
		if !strings.Contains(q, "m.provider_id <> ''") {
			t.Fatal("the locator's query lost the index condition")
		}
		ctx := context.Background()
		conn, err := d.SQL.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		explain := "EXPLAIN QUERY PLAN "
		if d.Dialect == db.Postgres {
			// An empty table is cheaper to scan than to search: forbid the scan
			// (on this connection) to see whether the index serves the query.
			if _, err := conn.ExecContext(ctx, `SET enable_seqscan = off`); err != nil {
				t.Fatal(err)
			}
			explain = "EXPLAIN "
		}
		rows, err := conn.QueryContext(ctx, explain+q, "x", 1)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var plan []string
		for rows.Next() {
			var line string
			if d.Dialect == db.SQLite {
				var id, parent, unused int
				if err := rows.Scan(&id, &parent, &unused, &line); err != nil {
					t.Fatal(err)
				}
			} else if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		if !strings.Contains(strings.Join(plan, "\n"), "messages_provider") {
			t.Fatalf("plan %q does not use messages_provider", plan)
		}
	})
}

func itoa(id engine.ID) string { return strconv.FormatInt(id, 10) }

func TestOutboxSkipsFailedMessages(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		w.company(1)
		w.contact(1, 5, "Maria", "5565999990001", "")
		w.open(1, 10, 5, 0, 7, "p10")
		refused := w.send(10, 7, "para um número inexistente", 0)
		waiting := w.send(10, 7, "ainda por enviar", 0)
		w.do(10, engine.FailMessage{MessageID: refused, Reason: "ERR_SENDING_WAPP_MSG"})
		got, err := readmodel.NewOutbox(d).PendingOutbound(context.Background(), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids []engine.ID
		for _, p := range got {
			ids = append(ids, p.MessageID)
		}
		if !slices.Equal(ids, []engine.ID{waiting}) {
			t.Fatalf("pending %v, want only %d (not the failed %d)", ids, waiting, refused)
		}
		// What the chat reads (GET /messages) marks it, and only it.
		msgs, err := w.q.AllMessages(context.Background(), 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		marked := map[engine.ID]bool{}
		for _, m := range msgs {
			marked[m.ID] = m.Failed
		}
		if len(msgs) != 2 || !marked[refused] || marked[waiting] {
			t.Fatalf("failed marks %v over %d messages, want only %d", marked, len(msgs), refused)
		}
	})
}

// An ack moves the message's ack (and updated_at) only forward, and stores the
// channel's id only when none is stored yet, each independently of the other.
func TestProjectionAckAndProviderID(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		w.company(1)
		w.contact(1, 5, "Maria", "5565999990001", "")
		w.open(1, 10, 5, 0, 7, "p10")
		a := w.send(10, 7, "um", 0)
		b := w.send(10, 7, "dois", 0)
		row := func(mid engine.ID) (int, string, string) {
			t.Helper()
			var ack int
			var pid, updated string
			if err := d.SQL.QueryRow(`SELECT ack, provider_id, CAST(updated_at AS TEXT) FROM messages WHERE id = $1`, mid).
				Scan(&ack, &pid, &updated); err != nil {
				t.Fatal(err)
			}
			return ack, pid, updated
		}
		// Ack with an id, then a later ack without one: the id stays.
		w.do(10, engine.AckMessage{MessageID: a, Ack: engine.AckSent, ProviderID: "ID-A"})
		_, _, u1 := row(a)
		w.do(10, engine.AckMessage{MessageID: a, Ack: engine.AckRead})
		if ack, pid, u2 := row(a); ack != int(engine.AckRead) || pid != "ID-A" || u2 == u1 {
			t.Fatalf("a: ack %d, provider id %q, updated %s -> %s", ack, pid, u1, u2)
		}
		// Ack without an id, then a later one with it: the id is stored.
		w.do(10, engine.AckMessage{MessageID: b, Ack: engine.AckSent})
		if ack, pid, _ := row(b); ack != int(engine.AckSent) || pid != "" {
			t.Fatalf("b: ack %d, provider id %q", ack, pid)
		}
		w.do(10, engine.AckMessage{MessageID: b, Ack: engine.AckRead, ProviderID: "ID-B"})
		_, _, ub := row(b)
		if ack, pid, _ := row(b); ack != int(engine.AckRead) || pid != "ID-B" {
			t.Fatalf("b: ack %d, provider id %q", ack, pid)
		}
		// An ack event that does not move the ack forward (the engine emits none, a
		// projection must still hold) stores an id not stored yet and leaves the ack
		// and updated_at; one with another id changes nothing.
		c := w.send(10, 7, "três", 0)
		w.do(10, engine.AckMessage{MessageID: c, Ack: engine.AckRead})
		_, _, uc := row(c)
		w.apply(w.raw(10, engine.TicketMessageAcked{MessageID: c, Ack: engine.AckSent, ProviderID: "ID-C", At: w.tick()}))
		if ack, pid, u := row(c); ack != int(engine.AckRead) || pid != "ID-C" || u != uc {
			t.Fatalf("c: ack %d, provider id %q, updated %s -> %s", ack, pid, uc, u)
		}
		w.apply(w.raw(10, engine.TicketMessageAcked{MessageID: b, Ack: engine.AckSent, ProviderID: "ID-X", At: w.tick()}))
		if ack, pid, u := row(b); ack != int(engine.AckRead) || pid != "ID-B" || u != ub {
			t.Fatalf("b after a stale ack: ack %d, provider id %q, updated %s -> %s", ack, pid, ub, u)
		}
	})
}

// raw records te on ticket id as the next event of its stream, without deciding it.
func (w *world) raw(id engine.ID, te engine.TicketEvent) []engine.RecordedEvent {
	w.t.Helper()
	s := engine.EvolveTicket(w.states[id].Clone(), te)
	typ, data, err := engine.EncodeTicketEvent(te)
	if err != nil {
		w.t.Fatal(err)
	}
	w.position++
	ev := engine.RecordedEvent{Position: w.position, StreamID: readmodel.TicketStreamPrefix + strconv.FormatInt(id, 10),
		Version: s.Version, Type: typ, Data: data, CompanyID: s.CompanyID, RecordedAt: w.now}
	w.states[id] = s
	w.log = append(w.log, ev)
	return []engine.RecordedEvent{ev}
}

// Several acknowledgements of one message in one batch — stale ones, repeated ones,
// the channel's id arriving late — leave the messages as applying them one batch each
// does (PostgreSQL folds a batch's acknowledgements into one statement).
func TestProjectionFoldsABatchsAcks(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			a, b, c := newWorld(t, dbtest.Open(t, dialect)), newWorld(t, dbtest.Open(t, dialect)), newWorld(t, dbtest.Open(t, dialect))
			for _, w := range []*world{a, b, c} {
				w.company(1)
				w.contact(1, 5, "Maria", "5565999990001", "")
			}
			a.open(1, 10, 5, 0, 7, "p10")
			a.receive(10, "olá")
			m1, m2, m3 := a.send(10, 7, "um", 0), a.send(10, 7, "dois", 0), a.send(10, 7, "três", 0)
			acked := func(m engine.ID, ack int, pid string) {
				a.raw(10, engine.TicketMessageAcked{MessageID: m, Ack: ack, ProviderID: pid, At: a.tick()})
			}
			sent := len(a.log)
			acked(m1, engine.AckSent, "")
			acked(m2, engine.AckRead, "")
			acked(m1, engine.AckRead, "ID-1")
			acked(m3, engine.AckSent, "")
			acked(m2, engine.AckSent, "ID-2") // stale: only the id is stored
			acked(m1, engine.AckSent, "ID-1b")
			acked(m3, engine.AckSent, "ID-3") // the same ack again, now with the id
			acked(m3, engine.AckPlayed, "")
			for _, ev := range a.log[sent:] {
				a.apply([]engine.RecordedEvent{ev})
			}
			a.do(10, engine.MarkRead{})
			// b takes the messages with their acknowledgements and the read mark in one
			// batch: they are written as the acks and the mark leave them. c had the
			// messages stored before and takes the whole batch again (a replay).
			b.apply(a.log)
			c.apply(a.log[:sent])
			c.apply(a.log)
			sa, sb, sc := snapshot(t, a.d), snapshot(t, b.d), snapshot(t, c.d)
			if sa != sb {
				t.Fatalf("one batch of acks differs from one ack a batch:\none a batch\n%s\none batch\n%s", sa, sb)
			}
			if sa != sc {
				t.Fatalf("a replayed batch differs from one ack a batch:\none a batch\n%s\nreplayed\n%s", sa, sc)
			}
			var unread int
			if err := b.d.SQL.QueryRow(`SELECT COUNT(*) FROM messages WHERE NOT read`).Scan(&unread); err != nil || unread != 0 {
				t.Errorf("%d messages unread after the read mark, %v", unread, err)
			}
			var ack int
			var pid string
			if err := b.d.SQL.QueryRow(`SELECT ack, provider_id FROM messages WHERE id = $1`, m2).Scan(&ack, &pid); err != nil ||
				ack != engine.AckRead || pid != "ID-2" {
				t.Errorf("message 2: ack %d, id %q, %v; want the read ack and the late id", ack, pid, err)
			}
		})
	}
}
