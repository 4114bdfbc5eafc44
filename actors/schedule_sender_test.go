package actors

import (
	"context"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

// A scheduled message delivered twice with the same message id (its job retried after
// a crash between the send and the job's completion) reaches the customer once, through
// the ticket actor and the connection's ordinary outbound path.
func TestScheduleSenderDeliversOncePerMessageID(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newLiveRig(t, d)
		dbtest.MustExec(t, d, `INSERT INTO users (id, company_id, name, name_key, search, email, password_hash, profile,
			created_at, updated_at) VALUES (10, 1, 'Ana', 'ana', 'ana', 'ana@a.test', 'x', 'user', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')`)
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket, IsDefault: true})
		ctx := context.Background()
		num := "webchat:bia"
		contact, _, err := r.contacts.FindOrCreateByNumber(ctx, 1, num, "Bia")
		if err != nil {
			t.Fatal(err)
		}
		s := ScheduleSender{Node: r.node, Guard: r.guard,
			Users: store.NewUsers(d, nil), Connections: r.conns}
		del := engine.ScheduledDelivery{CompanyID: 1, ContactID: contact.ID, MessageID: 777001, UserID: 10, Body: "Lembrete"}
		first, err := s.DeliverScheduled(ctx, del)
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.DeliverScheduled(ctx, del)
		if err != nil {
			t.Fatal(err)
		}
		if first == 0 || again != first {
			t.Fatalf("tickets %d then %d, want the same one", first, again)
		}
		st, err := r.tickets.State(ctx, 1, first)
		if err != nil {
			t.Fatal(err)
		}
		// No ticket existed: one was opened, pending, on the default connection.
		if st.Status != engine.StatusPending || st.ConnectionID != conn.ID || st.ContactID != contact.ID {
			t.Fatalf("ticket %+v", st)
		}
		// A later message to the same customer goes out after the first in the
		// recipient's lane: once it arrived, a duplicate of the first would have too.
		next := del
		next.MessageID, next.Body = 777002, "Segundo"
		if _, err := s.DeliverScheduled(ctx, next); err != nil {
			t.Fatal(err)
		}
		eventually(t, "both messages sent", func() bool { return len(ch.sentTo(num)) >= 2 })
		sent := ch.sentTo(num)
		if len(sent) != 2 || sent[0].Body != "Lembrete" || sent[1].Body != "Segundo" {
			t.Fatalf("sent %+v", sent)
		}
		// A delivery carrying the fire's read of the guard uses it; a stale one (no
		// ticket, read before the first was opened) still lands on the open ticket.
		stale := del
		stale.MessageID, stale.Body, stale.ConnectionID, stale.Current, stale.CurrentRead = 777004, "Terceiro", conn.ID, 0, true
		if got, err := s.DeliverScheduled(ctx, stale); err != nil || got != first {
			t.Fatalf("delivery with a stale guard read: ticket %d (%v), want %d", got, err, first)
		}
		fresh := stale
		fresh.MessageID, fresh.Body, fresh.Current = 777005, "Quarto", first
		if got, err := s.DeliverScheduled(ctx, fresh); err != nil || got != first {
			t.Fatalf("delivery with the guard's read: ticket %d (%v), want %d", got, err, first)
		}
		// Another tenant's ticket is not found.
		foreign := del
		foreign.CompanyID, foreign.TicketID, foreign.MessageID = 2, first, 777003
		if _, err := s.DeliverScheduled(ctx, foreign); engine.CodeOf(err) != engine.ErrNoTicketFound {
			t.Fatalf("foreign ticket: %v", err)
		}
	})
}
