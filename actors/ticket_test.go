package actors

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

type ticketRig struct {
	tickets  Tickets
	journal  *journal.Store
	mu       sync.Mutex
	dispatch []engine.TicketEvent
}

func newTicketRig(t *testing.T, d *db.DB, cfg TicketConfig) *ticketRig {
	t.Helper()
	j, err := journal.New(d, journal.Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	rig := &ticketRig{journal: j}
	cfg.Journal = j
	cfg.Clock = engine.FixedClock(t0)
	cfg.Dispatch = func(_ actor.Context, _ engine.TicketState, evs []engine.TicketEvent) {
		rig.mu.Lock()
		rig.dispatch = append(rig.dispatch, evs...)
		rig.mu.Unlock()
	}
	n, err := StartNode(NodeConfig{Kinds: []*cluster.Kind{TicketKind(cfg)}, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Stop(false) })
	rig.tickets = Tickets{Node: n}
	return rig
}

var (
	admin = &engine.Principal{UserID: 1, CompanyID: 1, Profile: engine.ProfileAdmin}
	ana   = &engine.Principal{UserID: 2, CompanyID: 1, Profile: engine.ProfileUser, QueueIDs: []engine.ID{10}}
	other = &engine.Principal{UserID: 9, CompanyID: 2, Profile: engine.ProfileAdmin}
)

func openPending(ctx context.Context, t *testing.T, tk Tickets, id engine.ID) TicketReply {
	t.Helper()
	r, err := tk.Do(ctx, 1, id, nil, 0, engine.OpenTicket{
		TicketID: id, UUID: "u", CompanyID: 1, ContactID: 5, ConnectionID: 3,
		Channel: engine.ChannelSocket, QueueID: 10, Status: engine.StatusPending,
	})
	if err != nil {
		t.Fatalf("open ticket %d: %v", id, err)
	}
	return r
}

func TestTicketActorLifecycle(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		rig := newTicketRig(t, d, TicketConfig{SnapshotEvery: 3})
		tk := rig.tickets
		r := openPending(ctx, t, tk, 42)
		if r.Ticket.Status != engine.StatusPending || r.Position == 0 || r.Events != 1 {
			t.Fatalf("open reply %+v", r)
		}
		if _, err := tk.Do(ctx, 1, 42, nil, 3, engine.ReceiveMessage{MessageID: 100, ProviderID: "p1", Body: "Olá"}); err != nil {
			t.Fatal(err)
		}
		// A redelivery of p1 under a new message id changes nothing.
		r, err := tk.Do(ctx, 1, 42, nil, 3, engine.ReceiveMessage{MessageID: 101, ProviderID: "p1", Body: "Olá"})
		if err != nil || r.Events != 0 || r.Ticket.UnreadMessages != 1 {
			t.Fatalf("redelivery: %+v %v", r, err)
		}
		known, err := tk.KnowsProviderID(ctx, 1, 42, "p1")
		if err != nil || !known {
			t.Fatalf("knows p1 = %v %v", known, err)
		}
		r, err = tk.Do(ctx, 1, 42, ana, 0, engine.Accept{UserID: ana.UserID})
		if err != nil || r.Ticket.Status != engine.StatusOpen || r.Ticket.UserID != ana.UserID {
			t.Fatalf("accept: %+v %v", r, err)
		}
		if _, err := tk.Do(ctx, 1, 42, ana, 0, engine.SendMessage{MessageID: 102, SenderID: ana.UserID, Body: "Bom dia!"}); err != nil {
			t.Fatal(err)
		}
		// Another tenant cannot see or touch it; the error does not leak existence.
		if _, err := tk.Do(ctx, 2, 42, other, 0, engine.Resolve{}); engine.CodeOf(err) != engine.ErrNoTicketFound {
			t.Fatalf("cross-tenant resolve: %v", err)
		}
		if _, err := tk.State(ctx, 2, 42); engine.CodeOf(err) != engine.ErrNoTicketFound {
			t.Fatalf("cross-tenant state: %v", err)
		}
		// An attendant cannot delete a ticket; an admin can't reopen an open one.
		if _, err := tk.Do(ctx, 1, 42, ana, 0, engine.Delete{}); engine.CodeOf(err) != engine.ErrNoPermission {
			t.Fatalf("user delete: %v", err)
		}
		if _, err := tk.Do(ctx, 1, 42, admin, 0, engine.Reopen{UserID: admin.UserID}); engine.CodeOf(err) != engine.ErrInvalidTransition {
			t.Fatalf("reopen open ticket: %v", err)
		}
		// An inbound message from a connection the ticket no longer lives on is refused.
		if _, err := tk.Do(ctx, 1, 42, nil, 99, engine.ReceiveMessage{MessageID: 103, ProviderID: "p2", Body: "x"}); engine.CodeOf(err) != engine.ErrInvalidTransition {
			t.Fatalf("inbound from another connection: %v", err)
		}
		r, err = tk.Do(ctx, 1, 42, ana, 0, engine.Resolve{})
		if err != nil || r.Ticket.Status != engine.StatusClosed {
			t.Fatalf("resolve: %+v %v", r, err)
		}
		// Everything is in the journal: a fresh fold equals the actor's state.
		recs, err := rig.journal.ReadStream(ctx, TicketStream(42), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		var folded engine.TicketState
		for _, rec := range recs {
			ev, err := engine.DecodeTicketEvent(rec.Type, rec.Data)
			if err != nil {
				t.Fatal(err)
			}
			folded = engine.EvolveTicket(folded, ev)
		}
		if folded.Version != r.Ticket.Version || folded.Status != engine.StatusClosed || folded.UserID != ana.UserID {
			t.Fatalf("journal fold %+v differs from actor state %+v", folded, r.Ticket)
		}
		if _, ok, _ := rig.journal.LoadSnapshot(ctx, TicketStream(42)); !ok {
			t.Fatal("no snapshot after more than SnapshotEvery events")
		}
		rig.mu.Lock()
		n := len(rig.dispatch)
		rig.mu.Unlock()
		if n != int(folded.Version) {
			t.Fatalf("dispatch saw %d events, journal has %d", n, folded.Version)
		}
	})
}

// A passivated actor comes back whole from snapshot + events.
func TestTicketActorRebuildsAfterPassivation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		rig := newTicketRig(t, d, TicketConfig{SnapshotEvery: 2, IdleTimeout: 50 * time.Millisecond})
		tk := rig.tickets
		openPending(ctx, t, tk, 7)
		for i := range 5 {
			if _, err := tk.Do(ctx, 1, 7, nil, 3, engine.ReceiveMessage{MessageID: engine.ID(200 + i), ProviderID: string(rune('a' + i)), Body: "oi"}); err != nil {
				t.Fatal(err)
			}
		}
		before, err := tk.State(ctx, 1, 7)
		if err != nil {
			t.Fatal(err)
		}
		// Wait for passivation: the activation count of the kind drops to zero.
		kind := rig.tickets.Node.Cluster.GetClusterKind(KindTicket)
		deadline := time.Now().Add(5 * time.Second)
		for kind.Count() > 0 {
			if time.Now().After(deadline) {
				t.Fatal("ticket actor never passivated")
			}
			time.Sleep(10 * time.Millisecond)
		}
		after, err := tk.State(ctx, 1, 7)
		if err != nil {
			t.Fatal(err)
		}
		if after.Version != before.Version || after.UnreadMessages != 5 || after.Status != engine.StatusPending {
			t.Fatalf("rebuilt %+v, had %+v", after, before)
		}
		// The rebuilt actor still de-duplicates a provider id seen before passivation.
		r, err := tk.Do(ctx, 1, 7, nil, 3, engine.ReceiveMessage{MessageID: 300, ProviderID: "a", Body: "oi"})
		if err != nil || r.Events != 0 {
			t.Fatalf("redelivery after rebuild: %+v %v", r, err)
		}
	})
}

// Two activations of one ticket (a split of membership) never corrupt its stream:
// the journal's version check wins, and the loser reloads and decides again.
func TestTicketActorConflictReloads(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		rig := newTicketRig(t, d, TicketConfig{})
		tk := rig.tickets
		openPending(ctx, t, tk, 8)
		if _, err := tk.State(ctx, 1, 8); err != nil {
			t.Fatal(err)
		}
		// Someone else (another node's activation) appends behind the actor's back.
		ev := engine.TicketMessageReceived{MessageID: 500, ProviderID: "zz", Body: "de fora", At: t0}
		typ, body, err := engine.EncodeTicketEvent(ev)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rig.journal.Append(ctx, 1, TicketStream(8), 1, engine.EventData{Type: typ, Data: body}); err != nil {
			t.Fatal(err)
		}
		r, err := tk.Do(ctx, 1, 8, admin, 0, engine.Accept{UserID: admin.UserID})
		if err != nil {
			t.Fatalf("accept after foreign append: %v", err)
		}
		if r.Ticket.Version != 3 || r.Ticket.UnreadMessages != 1 {
			t.Fatalf("state after reload %+v: want version 3 with the foreign message", r.Ticket)
		}
	})
}
