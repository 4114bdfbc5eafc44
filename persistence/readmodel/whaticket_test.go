package readmodel_test

import (
	"context"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// whaticket's ticket list and chat header read ticket.whatsapp.name (the connection's
// badge) and ticket.contact.createdAt; a ticket view without them shows "undefined"
// and an invalid date.
func TestWhaticketTicketCarriesConnectionNameAndContactCreatedAt(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		baseTenant(w)
		w.exec(`INSERT INTO connections (id, company_id, name, channel, token, created_at, updated_at)
			VALUES (1, 1, 'Comercial', 'whatsapp', 'tok-1', 0, 0)`)
		w.open(1, 1, 100, 11, 0, "20261122-000001")
		w.contact(1, 101, "Maria", "5565999990002", "")
		w.do(2, engine.OpenTicket{TicketID: 2, UUID: "uuid-2", CompanyID: 1, ContactID: 101, ConnectionID: 99,
			Channel: engine.ChannelWhatsApp, QueueID: 11, Status: engine.StatusPending, Protocol: "20261122-000002"})

		got, err := w.q.GetTicket(context.Background(), 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got.Whatsapp == nil || got.Whatsapp.ID != 1 || got.Whatsapp.Name != "Comercial" {
			t.Fatalf("whatsapp = %+v, want {1 Comercial}", got.Whatsapp)
		}
		if got.Contact == nil || !got.Contact.CreatedAt.Equal(base) || !got.Contact.UpdatedAt.Equal(base) {
			t.Fatalf("contact times = %+v, want %v", got.Contact, base)
		}
		// A ticket whose connection is gone has no whatsapp object, not an empty one.
		gone, err := w.q.GetTicket(context.Background(), 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		if gone.Whatsapp != nil {
			t.Fatalf("whatsapp of a ticket without connection = %+v", gone.Whatsapp)
		}
		// The list carries the same view.
		page := list(t, w, principal(1, 1, engine.ProfileAdmin), engine.TicketQuery{Status: engine.StatusPending, ShowAll: true})
		for _, tk := range page.Tickets {
			if tk.ID == 1 && (tk.Whatsapp == nil || tk.Whatsapp.Name != "Comercial" || tk.Contact.CreatedAt.IsZero()) {
				t.Fatalf("listed ticket = %+v", tk)
			}
		}
	})
}

// whaticket's dashboard asks GET /tickets?date=<new Date().toISOString()>: the
// instant's day in the tenant's zone (Cuiabá here, UTC-4), not in UTC.
func TestWhaticketTicketsDateAcceptsISOTimestamp(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		baseTenant(w)
		w.open(1, 1, 100, 11, 0, "20261122-000001") // created 2026-11-22 10:00 in Cuiabá
		admin := principal(1, 1, engine.ProfileAdmin)
		for date, want := range map[string]int{
			"2026-11-23T02:00:00.000Z":      1, // 22:00 on the 22nd in Cuiabá
			"2026-11-22T12:00:00-04:00":     1,
			"2026-11-23T05:00:00.000Z":      0, // 01:00 on the 23rd in Cuiabá
			"2026-11-21T23:59:59.999-04:00": 0,
		} {
			q := engine.TicketQuery{Date: date, ShowAll: true}
			if err := q.Validate(); err != nil {
				t.Fatalf("date %s refused: %v", date, err)
			}
			if got := len(list(t, w, admin, q).Tickets); got != want {
				t.Errorf("date %s: %d tickets, want %d", date, got, want)
			}
		}
		for _, bad := range []string{"2026-11-23T25:00:00Z", "yesterday", "2026-11-23T02:00:00"} {
			if err := (engine.TicketQuery{Date: bad}).Validate(); engine.CodeOf(err) != engine.ErrValidation {
				t.Errorf("date %q: err %v, want a validation error", bad, err)
			}
		}
	})
}

// The realtime publisher reads the whole message an appMessage "update" carries
// (whaticket's chat replaces the message it shows with the event's).
func TestWhaticketUpdatedMessagesReadWhole(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		baseTenant(w)
		w.company(2)
		w.open(1, 1, 100, 11, 2, "20261122-000001")
		in := w.receive(1, "Alô?")
		out := w.send(1, 2, "Bom dia!", in)
		w.do(1, engine.AckMessage{MessageID: out, Ack: engine.AckRead})
		var bulk interface {
			GetMessages(ctx context.Context, companyID engine.ID, ids []engine.ID) ([]engine.Message, error)
		} = w.q
		got, err := bulk.GetMessages(context.Background(), 1, []engine.ID{out, in, out, 999999})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[engine.ID]engine.Message{}
		for _, m := range got {
			byID[m.ID] = m
		}
		if len(got) != 2 {
			t.Fatalf("%d messages: %+v", len(got), got)
		}
		m := byID[out]
		if m.Body != "Bom dia!" || !m.FromMe || m.Ack != engine.AckRead || m.TicketID != 1 || m.CreatedAt.IsZero() ||
			m.QuotedMsg == nil || m.QuotedMsg.ID != in || m.QuotedMsg.Body != "Alô?" {
			t.Fatalf("message %+v", m)
		}
		if c := byID[in].Contact; c == nil || c.Name != "João da Silva" {
			t.Fatalf("inbound contact %+v", c)
		}
		// Another tenant reads none of them.
		if other, err := bulk.GetMessages(context.Background(), 2, []engine.ID{out, in}); err != nil || len(other) != 0 {
			t.Fatalf("tenant 2 read %+v, %v", other, err)
		}
	})
}
