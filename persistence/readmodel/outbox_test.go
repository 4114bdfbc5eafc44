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
		w.nextMsg++ // an AI answer is the attendant's, never the customer's
		w.do(10, engine.AddWhisper{MessageID: w.nextMsg, SenderID: 7, Body: "sugestão da IA", MediaType: engine.MediaChatGPT})
		aiAnswer := w.nextMsg
		w.do(10, engine.TranslateMessage{MessageID: aiAnswer - 2, ByUserID: 7, Language: "es", Body: "Respuesta 2"})
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
		msgs, err := w.q.GetMessages(context.Background(), 1, []engine.ID{aiAnswer, aiAnswer - 2})
		if err != nil || len(msgs) != 2 {
			t.Fatalf("get messages: %v %v", msgs, err)
		}
		for _, m := range msgs {
			switch m.ID {
			case aiAnswer:
				if m.MediaType != engine.MediaChatGPT || !m.FromMe {
					t.Errorf("AI answer stored as %+v", m)
				}
			default:
				if m.Translation != "Respuesta 2" || m.TranslationLanguage != "es" {
					t.Errorf("translation stored as %q %q", m.Translation, m.TranslationLanguage)
				}
			}
		}
		// Another connection has nothing to send.
		if other, err := ob.PendingOutbound(context.Background(), 2, 0); err != nil || len(other) != 0 {
			t.Fatalf("connection 2: %v %v", other, err)
		}
	})
}
