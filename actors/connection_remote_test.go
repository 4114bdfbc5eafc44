package actors

import (
	"context"
	"errors"
	"sync"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// A web-hook handler on any node reaches the connection actor through the cluster:
// the message is in a ticket when Inbound returns, a re-delivery is stored once, a
// receipt moves the ack, and a bad message gets the error code back across the wire.
func TestConnectionSinkThroughTheCluster(t *testing.T) {
	d := dbtest.Open(t, db.SQLite)
	r := newLiveRig(t, d)
	conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
	ctx := context.Background()
	sink := Connections{Node: r.node}.Sink(conn.ID)
	for range 2 { // the provider re-delivers
		if err := sink.Inbound(ctx, inbound("5511999990001", "wamid.1", "Olá")); err != nil {
			t.Fatal(err)
		}
	}
	states := r.ticketStates(t)
	if len(states) != 1 {
		t.Fatalf("%d tickets, want 1", len(states))
	}
	var tid engine.ID
	var st engine.TicketState
	for id, s := range states {
		tid, st = id, s
	}
	if len(st.Messages) != 1 {
		t.Fatalf("%d messages in the ticket, want 1 (re-delivery stored once)", len(st.Messages))
	}

	err := sink.Inbound(ctx, engine.InboundMessage{From: engine.ChannelContact{Number: "5511999990001"}, Body: "sem id"})
	if got := engine.CodeOf(err); got != engine.ErrValidation {
		t.Fatalf("inbound without provider id: code %q (%v), want %s", got, err, engine.ErrValidation)
	}

	admin := &engine.Principal{UserID: 1, CompanyID: 1, Profile: engine.ProfileAdmin}
	if _, err := r.tickets.Do(ctx, 1, tid, admin, 0, engine.Accept{UserID: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.tickets.Do(ctx, 1, tid, admin, 0, engine.SendMessage{MessageID: 901, SenderID: 1, Body: "Oi!"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "reply sent", func() bool { return len(ch.sentTo("5511999990001")) == 1 })
	eventually(t, "ack from the send", func() bool { return ackOf(r, t, tid, 901) >= engine.AckSent })
	if err := sink.Receipt(ctx, engine.Receipt{ProviderID: "out-901", Ack: engine.AckRead}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "read receipt", func() bool { return ackOf(r, t, tid, 901) == engine.AckRead })

	if err := sink.Status(ctx, engine.StatusChange{Status: engine.ConnConnected, Number: "5511999990000"}); err != nil {
		t.Fatal(err)
	}
	row, err := r.conns.Lookup(ctx, conn.ID)
	if err != nil || row.Status != engine.ConnConnected {
		t.Fatalf("status after remote Status: %q, %v", row.Status, err)
	}
}

// wipingChannel is a recChannel with credentials of its own, whose sessions reach
// past its node (engine.ChannelEnder).
type wipingChannel struct {
	*recChannel
	mu     *sync.Mutex
	wiped  *int
	stops  *int
	ends   *int
	failed error
}

func (c wipingChannel) End(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.ends++
	return nil
}

func (c wipingChannel) Stop(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.stops++
	return nil
}

func (c wipingChannel) WipeCredentials(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.wiped++
	return c.failed
}

type wipingFactory struct {
	inner              *recFactory
	mu                 sync.Mutex
	wiped, stops, ends int
	failWipe           error
}

func (f *wipingFactory) NewChannel(conn engine.Connection) (engine.Channel, error) {
	ch, _ := f.inner.NewChannel(conn)
	return wipingChannel{recChannel: ch.(*recChannel), mu: &f.mu, wiped: &f.wiped, stops: &f.stops, ends: &f.ends, failed: f.failWipe}, nil
}

// Stop ends the session (End, for a channel whose sessions reach past its node; a
// restart only stops it here) and records DISCONNECTED; Wipe also wipes the
// credentials of a channel that keeps some, and its failure reaches the caller.
func TestConnectionStopAndWipe(t *testing.T) {
	d := dbtest.Open(t, db.SQLite)
	wf := &wipingFactory{}
	r := newLiveRig(t, d, func(c *ConnectionConfig) {
		wf.inner = c.Channels.(*recFactory)
		c.Channels = wf
	})
	conn, _ := r.startConnection(t, engine.ConnectionInput{Name: "Zap", Channel: engine.ChannelWhatsApp})
	ctx := context.Background()
	conns := Connections{Node: r.node}
	if err := conns.Status(ctx, conn.ID, engine.StatusChange{Status: engine.ConnConnected}); err != nil {
		t.Fatal(err)
	}
	if err := conns.Restart(ctx, conn.ID); err != nil {
		t.Fatal(err)
	}
	if err := conns.Stop(ctx, conn.ID); err != nil {
		t.Fatal(err)
	}
	row, _ := r.conns.Lookup(ctx, conn.ID)
	wf.mu.Lock()
	stops, ends, wiped := wf.stops, wf.ends, wf.wiped
	wf.mu.Unlock()
	if row.Status != engine.ConnDisconnected || stops != 1 || ends != 1 || wiped != 0 {
		t.Fatalf("after Restart and Stop: status %q, stops %d, ends %d, wiped %d", row.Status, stops, ends, wiped)
	}
	if err := conns.Wipe(ctx, conn.ID); err != nil {
		t.Fatal(err)
	}
	wf.mu.Lock()
	wiped = wf.wiped
	wf.failWipe = errors.New("device store unreachable")
	wf.mu.Unlock()
	if wiped != 1 {
		t.Fatalf("wiped %d times, want 1", wiped)
	}
	if err := conns.Wipe(ctx, conn.ID); err == nil {
		t.Fatal("a failed wipe reported success")
	}
}
