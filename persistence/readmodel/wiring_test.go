package readmodel_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
	"atende/persistence/projection"
	"atende/persistence/readmodel"
)

// TestThroughJournalAndRunner wires the projection the way cmd/atende does: append to
// the journal, wait for the position, read your own write.
func TestThroughJournalAndRunner(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		w := newWorld(t, d)
		baseTenant(w)
		j, err := journal.New(d, journal.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		r, err := projection.New(d, j, projection.Config{}, readmodel.NewProjection(zerolog.Nop()))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })

		var state engine.TicketState
		var last engine.AppendResult
		for _, cmd := range []engine.TicketCommand{
			engine.OpenTicket{TicketID: 7, UUID: "u7", CompanyID: 1, ContactID: 100, ConnectionID: 1,
				Channel: engine.ChannelWhatsApp, QueueID: 10, Status: engine.StatusPending},
			engine.ReceiveMessage{MessageID: 70, Body: "quero o boleto"},
			engine.Accept{UserID: 2},
		} {
			evs, err := engine.DecideTicket(state, cmd, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			data := make([]engine.EventData, len(evs))
			for i, ev := range evs {
				typ, payload, err := engine.EncodeTicketEvent(ev)
				if err != nil {
					t.Fatal(err)
				}
				data[i] = engine.EventData{Type: typ, Data: payload}
				state = engine.EvolveTicket(state, ev)
			}
			last, err = j.Append(ctx, 1, readmodel.TicketStreamPrefix+strconv.Itoa(7), state.Version-int64(len(evs)), data...)
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := r.WaitFor(ctx, last.LastPosition()); err != nil {
			t.Fatal(err)
		}
		page, err := w.q.ListTickets(ctx, principal(1, 2, engine.ProfileUser, 10), engine.TicketQuery{Status: engine.StatusOpen})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Tickets) != 1 || page.Tickets[0].ID != 7 || page.Tickets[0].User.Name != "Ana" {
			t.Fatalf("open tab = %+v", page.Tickets)
		}
		msgs, err := w.q.ListMessages(ctx, 1, 7, engine.MessageQuery{})
		if err != nil || len(msgs.Messages) != 1 || msgs.Messages[0].Body != "quero o boleto" {
			t.Fatalf("messages = %+v, %v", msgs, err)
		}
	})
}
