package realtime

import (
	"testing"
	"time"

	"atende/engine"
)

// A translation reaches the open chats as appMessage update with the whole message,
// translation included; an AI answer reaches them as a chatgpt message.
func TestTranslationAndAIAnswerEvents(t *testing.T) {
	r := newRig(t)
	r.pub.Close()
	q := &withMessages{tickets: r.q, msgs: map[engine.ID]engine.Message{}}
	pub, err := New(Config{Source: r.j, Hub: r.pub.cfg.Hub, Backlog: r.backlog, Queries: q, Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r.pub = pub
	pub.Start()
	t.Cleanup(pub.Close)

	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	r.q.set(engine.Ticket{ID: 7, CompanyID: 1, Status: engine.StatusOpen, UserID: 2})
	q.msgs[71] = engine.Message{ID: 71, CompanyID: 1, TicketID: 7, Body: "Olá", Translation: "[Spanish] Olá",
		TranslationLanguage: "es", CreatedAt: at, UpdatedAt: at}
	p1 := r.ticketEvent(t, 7, engine.TicketMessageTranslated{MessageID: 71, ByUserID: 2, Language: "es", Body: "[Spanish] Olá", At: at})
	p2 := r.ticketEvent(t, 7, engine.TicketWhisperAdded{MessageID: 72, SenderID: 2, Body: "sugestão", MediaType: engine.MediaChatGPT, At: at})
	seen := 0
	for _, rec := range r.published(t, 1, p2) {
		name, body := frameJSON(t, rec)
		if name != EventAppMessage {
			continue
		}
		m := body["message"].(map[string]any)
		switch rec.Seq {
		case p1:
			seen++
			if body["action"] != ActionUpdate || m["translation"] != "[Spanish] Olá" || m["translationLanguage"] != "es" || m["body"] != "Olá" {
				t.Errorf("translation event %v", body)
			}
		case p2:
			seen++
			if body["action"] != ActionCreate || m["mediaType"] != engine.MediaChatGPT {
				t.Errorf("AI answer event %v", body)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("%d of the 2 events seen", seen)
	}
}
