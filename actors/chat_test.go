package actors

import (
	"context"
	"testing"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
)

func newChatNode(t *testing.T, j engine.Journal) Chats {
	t.Helper()
	n, err := StartNode(NodeConfig{Kinds: []*cluster.Kind{ChatKind(ChatConfig{Journal: j, Clock: engine.FixedClock(t0), SnapshotEvery: 2})}, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Stop(false) })
	return Chats{Node: n}
}

// A chat actor journals its events, and a fresh activation (another node after a
// failure) rebuilds the same state from snapshot plus events.
func TestChatActorJournalsAndRebuilds(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		j, err := journal.New(d, journal.Config{Logger: zerolog.Nop()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		owner := engine.Principal{UserID: 1, CompanyID: 1, Profile: engine.ProfileUser}
		peer := engine.Principal{UserID: 2, CompanyID: 1, Profile: engine.ProfileUser}
		chats := newChatNode(t, j)
		if _, _, err := chats.Chat(ctx, owner, 7, engine.CreateChat{ChatID: 7, UUID: "u", CompanyID: 1, OwnerID: 1, Users: []engine.ID{2}}); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if _, _, err := chats.Chat(ctx, peer, 7, engine.PostChatMessage{MessageID: engine.ID(100 + i), SenderID: 2, Body: "oi"}); err != nil {
				t.Fatal(err)
			}
		}
		// A retried post (same message id) appends nothing.
		if _, pos, err := chats.Chat(ctx, peer, 7, engine.PostChatMessage{MessageID: 101, SenderID: 2, Body: "oi"}); err != nil || pos != 0 {
			t.Fatalf("retry: position %d, %v", pos, err)
		}
		outsider := engine.Principal{UserID: 3, CompanyID: 1, Profile: engine.ProfileAdmin}
		if _, _, err := chats.Chat(ctx, outsider, 7, engine.PostChatMessage{MessageID: 200, SenderID: 3, Body: "x"}); engine.CodeOf(err) != engine.ErrNoPermission {
			t.Fatalf("outsider: %v", err)
		}
		stranger := engine.Principal{UserID: 1, CompanyID: 2, Profile: engine.ProfileAdmin}
		if _, err := chats.ChatState(ctx, stranger, 7); engine.CodeOf(err) != engine.ErrNotFound {
			t.Fatalf("other tenant: %v", err)
		}
		if _, _, err := chats.Chat(ctx, peer, 7, engine.DeleteChat{}); engine.CodeOf(err) != engine.ErrNoPermission {
			t.Fatalf("a participant deleted the owner's chat: %v", err)
		}

		again := newChatNode(t, j) // a second node: a fresh activation reads the journal
		s, err := again.ChatState(ctx, owner, 7)
		if err != nil {
			t.Fatal(err)
		}
		if s.Unreads[1] != 3 || s.Unreads[2] != 0 || s.Messages != 3 || s.Version != 4 || s.LastMessage != "oi" {
			t.Fatalf("rebuilt state %+v", s)
		}
		if _, ok, _ := j.LoadSnapshot(ctx, engine.ChatStream(7)); !ok {
			t.Fatal("no snapshot saved after SnapshotEvery events")
		}
		s, _, err = again.Chat(ctx, owner, 7, engine.ReadChat{UserID: 1})
		if err != nil || s.Unreads[1] != 0 {
			t.Fatalf("read: %+v %v", s.Unreads, err)
		}
		if _, _, err := again.Chat(ctx, owner, 7, engine.DeleteChat{}); err != nil {
			t.Fatal(err)
		}
		if _, err := again.ChatState(ctx, owner, 7); engine.CodeOf(err) != engine.ErrNotFound {
			t.Fatalf("deleted chat: %v", err)
		}
	})
}
