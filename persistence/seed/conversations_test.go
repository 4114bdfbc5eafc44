package seed_test

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
	"atende/persistence/projection"
	"atende/persistence/readmodel"
	"atende/persistence/seed"
)

// conversationWorld is the demo seed with its conversations wired, plus what reads
// them back the way the inbox does: the projections and the ticket queries.
type conversationWorld struct {
	deps    seed.Deps
	journal *journal.Store
	runner  *projection.Runner
	queries *readmodel.Queries
}

func newConversationWorld(t *testing.T, d *db.DB) *conversationWorld {
	t.Helper()
	j, err := journal.New(d, journal.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	runner, err := projection.New(d, j, projection.Config{}, readmodel.NewProjection(zerolog.Nop()))
	if err != nil {
		t.Fatal(err)
	}
	q, err := readmodel.NewQueries(d, readmodel.Config{})
	if err != nil {
		t.Fatal(err)
	}
	deps := refSeedDeps(d)
	deps.Connections = connection.New(d, nil)
	deps.Conversations = seed.ConversationDeps{Journal: j, IDs: db.NewIDs(d, 100), Guard: connection.NewGuard(d),
		Clock: engine.FixedClock(time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC))}
	return &conversationWorld{deps: deps, journal: j, runner: runner, queries: q}
}

// tickets lists the demo tenant's tickets of one status as an administrator's inbox
// shows them, once the read models caught up with the journal.
func (w *conversationWorld) tickets(t *testing.T, status string) []engine.Ticket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	head, err := w.journal.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.runner.WaitFor(ctx, head); err != nil {
		t.Fatal(err)
	}
	admin, err := w.deps.Users.ByEmail(ctx, "admin@atende.local")
	if err != nil {
		t.Fatal(err)
	}
	p := engine.Principal{UserID: admin.ID, CompanyID: seed.DemoCompanyID, Profile: admin.Profile}
	page, err := w.queries.ListTickets(ctx, p, engine.TicketQuery{Status: status, ShowAll: true})
	if err != nil {
		t.Fatal(err)
	}
	return page.Tickets
}

func TestDemoConversations(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		w := newConversationWorld(t, d)
		if err := w.runner.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = w.runner.Close() })
		if err := seed.Demo(ctx, w.deps); err != nil {
			t.Fatal(err)
		}

		channels := map[string]bool{}
		all := 0
		for _, status := range []string{engine.StatusPending, engine.StatusOpen, engine.StatusClosed} {
			tickets := w.tickets(t, status)
			if len(tickets) < 2 {
				t.Fatalf("%d %s tickets, want a few", len(tickets), status)
			}
			all += len(tickets)
			for _, tk := range tickets {
				channels[tk.Channel] = true
				if tk.LastMessage == "" || tk.Contact == nil || tk.Contact.Name == "" || tk.Contact.Name == tk.Contact.Number {
					t.Fatalf("%s ticket %d: last message %q, contact %+v", status, tk.ID, tk.LastMessage, tk.Contact)
				}
				switch status {
				case engine.StatusPending:
					if tk.UserID != 0 || tk.UnreadMessages == 0 || tk.QueueID == 0 {
						t.Fatalf("pending ticket %d: user %d, %d unread, queue %d", tk.ID, tk.UserID, tk.UnreadMessages, tk.QueueID)
					}
				case engine.StatusOpen, engine.StatusClosed:
					if tk.UserID == 0 {
						t.Fatalf("%s ticket %d has no attendant", status, tk.ID)
					}
				}
				msgs, err := w.queries.ListMessages(ctx, seed.DemoCompanyID, tk.ID, engine.MessageQuery{})
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range msgs.Messages {
					// Nothing of ours waits to be sent: the outbox would send it.
					if m.FromMe && m.Ack == engine.AckPending {
						t.Fatalf("ticket %d: message %d of ours still at ack 0", tk.ID, m.ID)
					}
				}
			}
		}
		if all != seed.DemoConversations() {
			t.Fatalf("%d tickets, want the %d conversations", all, seed.DemoConversations())
		}
		if !channels[engine.ChannelSocket] || !channels[engine.ChannelTelegram] {
			t.Fatalf("channels %v, want web chat and Telegram", channels)
		}

		// A second seed adds nothing: no ticket, no event, no connection.
		head, err := w.journal.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns, _ := w.deps.Connections.List(ctx, seed.DemoCompanyID)
		if err := seed.Demo(ctx, w.deps); err != nil {
			t.Fatalf("second seed: %v", err)
		}
		again, _ := w.journal.Head(ctx)
		connsAgain, _ := w.deps.Connections.List(ctx, seed.DemoCompanyID)
		if again != head || len(connsAgain) != len(conns) {
			t.Fatalf("second seed: journal head %d → %d, connections %d → %d", head, again, len(conns), len(connsAgain))
		}
	})
}

// A conversation whose guard was claimed but whose ticket was never written (the
// append failed) is written by the next seed rather than lost for good.
func TestDemoConversationsAfterAHalfWrittenOne(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		w := newConversationWorld(t, d)
		conv := w.deps.Conversations
		w.deps.Conversations = seed.ConversationDeps{}
		if err := seed.Demo(ctx, w.deps); err != nil { // everything but the conversations
			t.Fatal(err)
		}
		// Claim the guard of the first sample conversation for a ticket never written.
		conns, err := w.deps.Connections.List(ctx, seed.DemoCompanyID)
		if err != nil || len(conns) != 1 {
			t.Fatalf("connections %+v %v", conns, err)
		}
		c, _, err := w.deps.Contacts.FindOrCreateByNumber(ctx, seed.DemoCompanyID, "webchat:demo-mariana", "Mariana Costa")
		if err != nil {
			t.Fatal(err)
		}
		if ok, _, err := conv.Guard.Swap(ctx, seed.DemoCompanyID, conns[0].ID, c.ID, 0, 999_999); err != nil || !ok {
			t.Fatalf("swap %v %v", ok, err)
		}

		w.deps.Conversations = conv
		if err := w.runner.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = w.runner.Close() })
		if err := seed.Demo(ctx, w.deps); err != nil {
			t.Fatal(err)
		}
		now, err := conv.Guard.Current(ctx, conns[0].ID, c.ID)
		if err != nil || now == 999_999 || now == 0 {
			t.Fatalf("guard %d %v", now, err)
		}
		found := false
		for _, tk := range w.tickets(t, engine.StatusPending) {
			found = found || tk.ID == now
		}
		if !found {
			t.Fatalf("ticket %d of the half-written conversation not in the pending list", now)
		}
	})
}
