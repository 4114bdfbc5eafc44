package readmodel_test

import (
	"context"
	"database/sql"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
)

// chatLog decides chat commands with the engine and records their events as the
// journal would, for the chats projection.
type chatLog struct {
	w      *world
	states map[engine.ID]engine.ChatState
	events []engine.RecordedEvent
}

func (l *chatLog) do(id engine.ID, cmd engine.ChatCommand) {
	l.w.t.Helper()
	s := l.states[id]
	at := l.w.tick()
	evs, err := engine.DecideChat(s, cmd, at)
	if err != nil {
		l.w.t.Fatalf("decide %s: %v", cmd.CommandName(), err)
	}
	for _, ev := range evs {
		s = engine.EvolveChat(s, ev)
		typ, data, err := engine.EncodeChatEvent(ev)
		if err != nil {
			l.w.t.Fatal(err)
		}
		l.w.position++
		l.events = append(l.events, engine.RecordedEvent{Position: l.w.position, StreamID: engine.ChatStream(id),
			Version: s.Version, Type: typ, Data: data, CompanyID: s.CompanyID, RecordedAt: at})
	}
	l.states[id] = s
}

func (l *chatLog) apply(evs []engine.RecordedEvent) {
	l.w.t.Helper()
	err := l.w.d.Tx(context.Background(), func(tx *sql.Tx) error {
		return readmodel.ChatProjection{}.Apply(context.Background(), tx, l.w.d, evs)
	})
	if err != nil {
		l.w.t.Fatal(err)
	}
}

func TestChatProjectionListsUnreadsAndPages(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		w := newWorld(t, d)
		w.company(1)
		w.company(2)
		w.user(1, 10, "Ana Souza", engine.ProfileUser)
		w.user(1, 11, "Bruno Lima", engine.ProfileUser)
		w.user(1, 12, "Célia Rocha", engine.ProfileUser)
		w.user(2, 20, "Outra Empresa", engine.ProfileUser)
		l := &chatLog{w: w, states: map[engine.ID]engine.ChatState{}}
		l.do(1, engine.CreateChat{ChatID: 1, UUID: "a", CompanyID: 1, OwnerID: 10, Users: []engine.ID{11}})
		l.do(2, engine.CreateChat{ChatID: 2, UUID: "b", CompanyID: 1, OwnerID: 11, Users: []engine.ID{10, 12}, Title: "Plantão noturno"})
		l.do(3, engine.CreateChat{ChatID: 3, UUID: "c", CompanyID: 2, OwnerID: 20, Users: []engine.ID{21}})
		for i := range engine.ChatMessagePageSize + 5 {
			l.do(1, engine.PostChatMessage{MessageID: engine.ID(1000 + i), SenderID: 11, Body: "msg"})
		}
		l.do(2, engine.PostChatMessage{MessageID: 5000, SenderID: 12, Body: "Boa noite"})
		l.do(2, engine.ReadChat{UserID: 10})
		// Applying in two batches, then the whole log again (a replay), leaves the same rows.
		half := len(l.events) / 2
		l.apply(l.events[:half])
		l.apply(l.events[half:])
		l.apply(l.events)

		q := readmodel.NewChatQueries(d)
		list, count, more, err := q.ListChats(ctx, 1, 10, engine.ChatQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if count != 2 || more || len(list) != 2 || list[0].ID != 2 {
			t.Fatalf("list %+v count %d more %v", list, count, more)
		}
		if got := list[1].UnreadsOf(10); got != engine.ChatMessagePageSize+5 {
			t.Fatalf("unreads of Ana in chat 1: %d", got)
		}
		if got := list[0].UnreadsOf(10); got != 0 {
			t.Fatalf("unreads after read: %d", got)
		}
		if list[0].Owner == nil || list[0].Owner.Name != "Bruno Lima" || list[0].LastMessage != "Boa noite" {
			t.Fatalf("chat 2: %+v", list[0])
		}
		// Search: accents folded in the title; a participant's name.
		if l2, _, _, _ := q.ListChats(ctx, 1, 10, engine.ChatQuery{Search: "PLANTAO"}); len(l2) != 1 || l2[0].ID != 2 {
			t.Fatalf("search title: %+v", l2)
		}
		if l2, _, _, _ := q.ListChats(ctx, 1, 10, engine.ChatQuery{Search: "bruno"}); len(l2) != 2 {
			t.Fatalf("search name: %+v", l2)
		}
		if l2, _, _, _ := q.ListChats(ctx, 1, 10, engine.ChatQuery{Search: "%"}); len(l2) != 0 {
			t.Fatalf("a wildcard matched: %+v", l2)
		}
		// Célia is not in chat 1; another tenant sees nothing of company 1.
		if l2, _, _, _ := q.ListChats(ctx, 1, 12, engine.ChatQuery{}); len(l2) != 1 {
			t.Fatalf("Célia's chats: %+v", l2)
		}
		if _, err := q.GetChat(ctx, 2, 1); engine.CodeOf(err) != engine.ErrNotFound {
			t.Fatalf("another tenant's chat: %v", err)
		}
		msgs, n, more, err := q.ListChatMessages(ctx, 1, 1, 1)
		if err != nil || n != engine.ChatMessagePageSize+5 || !more || len(msgs) != engine.ChatMessagePageSize {
			t.Fatalf("page 1: %d msgs of %d, more %v, %v", len(msgs), n, more, err)
		}
		if msgs[len(msgs)-1].ID != 1000+engine.ChatMessagePageSize+4 || msgs[0].Sender.Name != "Bruno Lima" {
			t.Fatalf("page 1 order: first %+v last %+v", msgs[0], msgs[len(msgs)-1])
		}
		msgs, _, more, _ = q.ListChatMessages(ctx, 1, 1, 2)
		if len(msgs) != 5 || more || msgs[0].ID != 1000 {
			t.Fatalf("page 2: %d msgs, more %v", len(msgs), more)
		}
		// Deleting hides the chat from every list.
		l.events = nil
		l.do(2, engine.DeleteChat{})
		l.apply(l.events)
		if _, err := q.GetChat(ctx, 1, 2); engine.CodeOf(err) != engine.ErrNotFound {
			t.Fatalf("deleted chat: %v", err)
		}
	})
}
