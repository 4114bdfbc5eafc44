package readmodel_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
)

// lifecycle drives one ticket through every event type and returns the ids of the
// messages it wrote: inbound, reply (quoting inbound), whisper, deleted.
func lifecycle(w *world, id, company, contact engine.ID) (in, reply, whisper, deleted engine.ID) {
	w.open(company, id, contact, 10, 0, fmt.Sprintf("20261122-%06d", id))
	in = w.receive(id, "Olá, preciso do boleto")
	w.do(id, engine.Accept{UserID: 2})
	w.do(id, engine.MarkRead{})
	reply = w.send(id, 2, "Segue o boleto", in)
	w.do(id, engine.AckMessage{MessageID: reply, Ack: engine.AckRead})
	w.nextMsg++
	whisper = w.nextMsg
	w.do(id, engine.AddWhisper{MessageID: whisper, SenderID: 2, Body: "cliente antigo"})
	deleted = w.send(id, 2, "mensagem errada", 0)
	w.do(id, engine.DeleteMessage{MessageID: deleted, ByUserID: 2})
	w.do(id, engine.SetTags{TagIDs: []engine.ID{20, 21}})
	w.do(id, engine.Transfer{QueueID: 11})
	w.receive(id, "Alô?")
	return in, reply, whisper, deleted
}

func baseTenant(w *world) {
	w.company(1)
	w.user(1, 1, "Alice Admin", engine.ProfileAdmin)
	w.user(1, 2, "Ana", engine.ProfileUser)
	w.queue(1, 10, "Vendas", "#ff0000")
	w.queue(1, 11, "Suporte", "#00ff00")
	w.tag(1, 20, "Urgente", "#aa0000")
	w.tag(1, 21, "VIP", "#00aa00")
	w.contact(1, 100, "João da Silva", "5565999990001", "joao@example.com")
}

func TestProjectionFoldsEveryEvent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		w := newWorld(t, d)
		baseTenant(w)
		in, reply, whisper, deleted := lifecycle(w, 1, 1, 100)

		got, err := w.q.GetTicket(ctx, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := w.states[1].Ticket()
		if got.Status != engine.StatusPending || got.Status != want.Status || got.UserID != want.UserID ||
			got.QueueID != 11 || got.UnreadMessages != 1 || got.LastMessage != "Alô?" || got.Protocol != "20261122-000001" ||
			!got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) || got.UUID != want.UUID ||
			got.ConnectionID != want.ConnectionID || got.Channel != want.Channel {
			t.Fatalf("ticket = %+v\nwant   %+v", got, want)
		}
		if got.Contact == nil || got.Contact.Name != "João da Silva" || got.Contact.Number != "5565999990001" ||
			got.Contact.ProfilePicURL != "https://pics.example/100" || got.Contact.Email != "joao@example.com" {
			t.Fatalf("contact = %+v", got.Contact)
		}
		if got.User != nil {
			t.Fatalf("pending ticket has user %+v", got.User)
		}
		if got.Queue == nil || got.Queue.Name != "Suporte" || got.Queue.Color != "#00ff00" {
			t.Fatalf("queue = %+v", got.Queue)
		}
		if len(got.Tags) != 2 || got.Tags[0].Name != "Urgente" || got.Tags[1].Name != "VIP" || got.Tags[1].Color != "#00aa00" {
			t.Fatalf("tags = %+v", got.Tags)
		}

		msgs, err := w.q.AllMessages(ctx, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 5 {
			t.Fatalf("%d messages, want 5: %+v", len(msgs), msgs)
		}
		byID := map[engine.ID]engine.Message{}
		for _, m := range msgs {
			byID[m.ID] = m
		}
		if m := byID[in]; m.FromMe || !m.Read || m.Contact == nil || m.Contact.ID != 100 || m.ContactID != 100 ||
			m.Body != "Olá, preciso do boleto" || m.ProviderID == "" {
			t.Errorf("inbound = %+v (read after MarkRead, contact filled)", m)
		}
		if m := byID[reply]; !m.FromMe || m.SenderID != 2 || m.Ack != engine.AckRead || m.QuotedMsg == nil ||
			m.QuotedMsg.ID != in || m.QuotedMsg.Body != "Olá, preciso do boleto" || m.QuotedMsg.FromMe ||
			m.QuotedMsg.ContactName != "João da Silva" || m.Contact != nil {
			t.Errorf("reply = %+v quoted %+v", m, m.QuotedMsg)
		}
		if m := byID[whisper]; m.MediaType != engine.MediaWhisper || !m.FromMe || m.SenderID != 2 {
			t.Errorf("whisper = %+v", m)
		}
		if m := byID[deleted]; !m.IsDeleted || m.Body != "mensagem errada" {
			t.Errorf("deleted = %+v (body kept)", m)
		}
		last := msgs[len(msgs)-1]
		if last.Body != "Alô?" || last.Read {
			t.Errorf("last = %+v, want the unread inbound 'Alô?'", last)
		}
		if !slices.IsSortedFunc(msgs, func(a, b engine.Message) int { return a.CreatedAt.Compare(b.CreatedAt) }) {
			t.Error("messages not in stream order")
		}
	})
}

// TestProjectionIdempotent applies the whole log again, as one batch and event by
// event: nothing changes, nothing doubles.
func TestProjectionIdempotent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		baseTenant(w)
		lifecycle(w, 1, 1, 100)
		lifecycle(w, 2, 1, 100)
		before := snapshot(t, d)
		w.apply(w.log)
		for _, ev := range w.log {
			w.apply([]engine.RecordedEvent{ev})
		}
		if after := snapshot(t, d); after != before {
			t.Fatalf("replay changed the read model:\nbefore\n%s\nafter\n%s", before, after)
		}
		page := list(t, w, principal(1, 1, engine.ProfileAdmin), engine.TicketQuery{SearchParam: "m:boleto"})
		if !sameIDs(ids(page.Tickets), []engine.ID{1, 2}) || page.Count != 2 {
			t.Fatalf("word search after replay = %v count %d", ids(page.Tickets), page.Count)
		}
	})
}

// TestProjectionBatchingIrrelevant feeds the same random history to two databases,
// one event per batch and in random batches: the read models are identical, and the
// tickets equal the states the engine folded.
func TestProjectionBatchingIrrelevant(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 11))
			a, b := newWorld(t, dbtest.Open(t, dialect)), newWorld(t, dbtest.Open(t, dialect))
			for _, w := range []*world{a, b} {
				baseTenant(w)
			}
			// Decide on a; the same recorded events feed both.
			for id := engine.ID(1); id <= 12; id++ {
				a.open(1, id, 100, engine.ID(10+rng.IntN(2)), 0, "")
			}
			for range 300 {
				id := engine.ID(1 + rng.IntN(12))
				s := a.states[id]
				if !s.Exists() {
					continue
				}
				for _, cmd := range randomCommands(rng, a, s) {
					if _, err := engine.DecideTicket(s.Clone(), cmd, a.now); err == nil {
						a.decide(id, cmd)
						break
					}
				}
			}
			if len(a.log) < 200 {
				t.Fatalf("only %d events decided: the history exercises too little", len(a.log))
			}
			// a: one event per batch (minus the opens already applied); b: random batches.
			applied := 12
			for _, ev := range a.log[applied:] {
				a.apply([]engine.RecordedEvent{ev})
			}
			for i := 0; i < len(a.log); {
				n := 1 + rng.IntN(40)
				b.apply(a.log[i:min(i+n, len(a.log))])
				i += n
			}
			sa, sb := snapshot(t, a.d), snapshot(t, b.d)
			if sa != sb {
				t.Fatalf("batching changed the read model:\none by one\n%s\nbatched\n%s", sa, sb)
			}
			for id, s := range a.states {
				got, err := a.q.GetTicket(context.Background(), 1, id)
				if s.Deleted {
					wantCode(t, err, engine.ErrNoTicketFound)
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				want := s.Ticket()
				if got.Status != want.Status || got.UserID != want.UserID || got.QueueID != want.QueueID ||
					got.UnreadMessages != want.UnreadMessages || got.LastMessage != want.LastMessage ||
					!got.UpdatedAt.Equal(want.UpdatedAt) || len(got.Tags) != len(want.Tags) {
					t.Fatalf("ticket %d = %+v\nwant %+v", id, got, want)
				}
			}
			checkCounts(t, a.d)
		})
	}
}

func randomCommands(rng *rand.Rand, w *world, s engine.TicketState) []engine.TicketCommand {
	w.nextMsg++
	msg := w.nextMsg
	var known []engine.ID
	for id := range s.Messages {
		known = append(known, id)
	}
	slices.Sort(known)
	pick := func() engine.ID {
		if len(known) == 0 {
			return 0
		}
		return known[rng.IntN(len(known))]
	}
	user := engine.ID(1 + rng.IntN(2))
	cmds := []engine.TicketCommand{
		engine.ReceiveMessage{MessageID: msg, Body: fmt.Sprintf("mensagem %d do cliente", msg)},
		engine.SendMessage{MessageID: msg, SenderID: s.UserID, Body: fmt.Sprintf("resposta %d", msg), QuotedID: pick()},
		engine.AddWhisper{MessageID: msg, SenderID: s.UserID, Body: "nota"},
		engine.AckMessage{MessageID: pick(), Ack: []int{1, 3, 4}[rng.IntN(3)]},
		engine.DeleteMessage{MessageID: pick(), ByUserID: s.UserID},
		engine.MarkRead{},
		engine.SetTags{TagIDs: [][]engine.ID{nil, {20}, {20, 21}}[rng.IntN(3)]},
		engine.Accept{UserID: user},
		engine.Resolve{},
		engine.Return{},
		engine.Reopen{UserID: user},
		engine.Transfer{QueueID: engine.ID(10 + rng.IntN(2))},
		engine.Transfer{UserID: user},
	}
	if rng.IntN(60) == 0 {
		cmds = append(cmds, engine.Delete{})
	}
	rng.Shuffle(len(cmds), func(i, j int) { cmds[i], cmds[j] = cmds[j], cmds[i] })
	return cmds
}

// checkCounts compares ticket_counts with a count of the live tickets.
func checkCounts(t *testing.T, d *db.DB) {
	t.Helper()
	got := queryLines(t, d, `SELECT company_id, status, queue_id, user_id, n FROM ticket_counts WHERE n <> 0
		ORDER BY company_id, status, queue_id, user_id`)
	want := queryLines(t, d, `SELECT company_id, status, queue_id, user_id, count(*) FROM tickets WHERE deleted = FALSE
		GROUP BY company_id, status, queue_id, user_id ORDER BY company_id, status, queue_id, user_id`)
	if got != want {
		t.Fatalf("ticket_counts\n%s\nwant\n%s", got, want)
	}
}

// snapshot renders every read-model table, ordered.
func snapshot(t *testing.T, d *db.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT id, company_id, uuid, status, user_id, queue_id, whatsapp_id, contact_id, channel, is_group,
			unread_messages, last_message, protocol, created_at, updated_at, deleted, version FROM tickets ORDER BY id`,
		`SELECT ticket_id, tag_id, company_id FROM ticket_tags ORDER BY ticket_id, tag_id`,
		`SELECT company_id, status, queue_id, user_id, n FROM ticket_counts WHERE n <> 0 ORDER BY company_id, status, queue_id, user_id`,
		`SELECT id, company_id, ticket_id, seq, contact_id, sender_id, body, from_me, read, media_type, media_url,
			quoted_msg_id, ack, is_deleted, provider_id, created_at, updated_at FROM messages ORDER BY id`,
	} {
		b.WriteString(queryLines(t, d, q))
		b.WriteString("--\n")
	}
	if d.Dialect == db.Postgres {
		b.WriteString(queryLines(t, d, `SELECT ticket_id, company_id, words::text FROM ticket_words ORDER BY ticket_id`))
	} else {
		b.WriteString(queryLines(t, d, `SELECT count(*) FROM messages_fts`))
	}
	return b.String()
}

func queryLines(t *testing.T, d *db.DB, q string) string {
	t.Helper()
	rs, err := d.SQL.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var b strings.Builder
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('|')
			}
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			fmt.Fprint(&b, v)
		}
		b.WriteByte('\n')
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestProjectionIgnoresOtherStreams: events of other streams and unknown ticket event
// types are skipped without failing the batch.
func TestProjectionIgnoresOtherStreams(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		baseTenant(w)
		w.open(1, 1, 100, 10, 0, "")
		other := []engine.RecordedEvent{
			{Position: 100, StreamID: "connection/1", Version: 1, Type: "connection.status", Data: []byte(`{}`), CompanyID: 1},
			{Position: 101, StreamID: "ticket/abc", Version: 1, Type: engine.EvTicketOpened, Data: []byte(`{}`), CompanyID: 1},
			{Position: 102, StreamID: "ticket/1", Version: 2, Type: "ticket.future_event", Data: []byte(`{"x":1}`), CompanyID: 1},
		}
		w.apply(other)
		got, err := w.q.GetTicket(context.Background(), 1, 1)
		if err != nil || got.Status != engine.StatusPending {
			t.Fatalf("ticket = %+v, %v", got, err)
		}
		var version int64
		if err := d.SQL.QueryRow(`SELECT version FROM tickets WHERE id = 1`).Scan(&version); err != nil || version != 2 {
			t.Fatalf("version = %d, %v; the unknown event moves it to 2", version, err)
		}
		// A malformed payload of a known type fails the batch (the runner retries it),
		// and the transaction leaves nothing behind.
		bad := []engine.RecordedEvent{{Position: 103, StreamID: "ticket/1", Version: 3, Type: engine.EvTicketAccepted, Data: []byte(`[`), CompanyID: 1}}
		err = d.Tx(context.Background(), func(tx *sql.Tx) error { return w.proj.Apply(context.Background(), tx, d, bad) })
		if err == nil {
			t.Fatal("malformed event applied")
		}
	})
}

// TestProjectionReset empties every table.
func TestProjectionReset(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		baseTenant(w)
		lifecycle(w, 1, 1, 100)
		if err := d.Tx(context.Background(), func(tx *sql.Tx) error { return w.proj.Reset(context.Background(), tx, d) }); err != nil {
			t.Fatal(err)
		}
		w.apply(w.log)
		checkCounts(t, d)
		page := list(t, w, principal(1, 1, engine.ProfileAdmin), engine.TicketQuery{SearchParam: "m:boleto"})
		if !slices.Equal(ids(page.Tickets), []engine.ID{1}) {
			t.Fatalf("after reset and replay: %v", ids(page.Tickets))
		}
		if readmodel.ProjectionName != w.proj.Name() {
			t.Fatal("name")
		}
	})
}
