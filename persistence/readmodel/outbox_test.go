package readmodel_test

import (
	"context"
	"slices"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
)

func TestOutboxListsOnlyUnsentMessagesOfTheConnection(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		w.company(1)
		w.contact(1, 5, "Maria", "5565999990001", "")
		w.open(1, 10, 5, 0, 7, "p10") // open with user 7, on connection 1
		w.receive(10, "Olá")
		unsent := w.send(10, 7, "Resposta 1", 0)
		acked := w.send(10, 7, "Resposta 2", 0)
		w.do(10, engine.AckMessage{MessageID: acked, Ack: engine.AckSent})
		w.nextMsg++
		w.do(10, engine.AddWhisper{MessageID: w.nextMsg, SenderID: 7, Body: "nota interna"})
		w.nextMsg++
		w.do(10, engine.SendAutomaticMessage{MessageID: w.nextMsg, ProviderID: "echo-1", Body: "do celular"})
		deleted := w.send(10, 7, "apagada", 0)
		w.do(10, engine.DeleteMessage{MessageID: deleted, ByUserID: 7})
		greeting := w.nextMsg + 1
		w.nextMsg++
		w.do(10, engine.SendAutomaticMessage{MessageID: greeting, Body: "Bem-vindo"})

		ob := readmodel.NewOutbox(d)
		got, err := ob.PendingOutbound(context.Background(), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids []engine.ID
		for _, p := range got {
			ids = append(ids, p.MessageID)
			if p.TicketID != 10 || p.ContactID != 5 {
				t.Fatalf("pending %+v: wrong ticket or contact", p)
			}
		}
		if !slices.Equal(ids, []engine.ID{unsent, greeting}) {
			t.Fatalf("pending %v, want the unsent reply %d and the greeting %d", ids, unsent, greeting)
		}
		// Another connection has nothing to send.
		if other, err := ob.PendingOutbound(context.Background(), 2, 0); err != nil || len(other) != 0 {
			t.Fatalf("connection 2: %v %v", other, err)
		}
	})
}
