package actors

import (
	"context"
	"strconv"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// The connection keeps the PIDs of the tickets it talks to. A ticket actor that
// stopped since (passivated when idle) answers a dead letter; the connection then
// finds the ticket again, which activates it anew, and the customer's message is
// stored as if nothing happened.
func TestConnectionFindsAStoppedTicketAgain(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newLiveRig(t, d)
		_, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
		ctx := context.Background()
		num := "webchat:bia"
		if err := ch.sink.Inbound(ctx, inbound(num, "p1", "Oi")); err != nil {
			t.Fatal(err)
		}
		states := r.ticketStates(t)
		if len(states) != 1 {
			t.Fatalf("%d tickets", len(states))
		}
		var tid engine.ID
		for id := range states {
			tid = id
		}
		for round := range 3 {
			pid := r.node.Cluster.Get(strconv.FormatInt(tid, 10), KindTicket)
			if pid == nil {
				t.Fatal("no activation for the ticket")
			}
			if err := r.node.System.Root.PoisonFuture(pid).Wait(); err != nil {
				t.Fatal(err)
			}
			pidN := "p" + strconv.Itoa(round+2)
			c, cancel := context.WithTimeout(ctx, 30*time.Second)
			err := ch.sink.Inbound(c, inbound(num, pidN, "De novo"))
			cancel()
			if err != nil {
				t.Fatalf("message after the ticket stopped: %v", err)
			}
			st := r.ticketStates(t)
			if len(st) != 1 || st[tid].ProviderIDs[pidN] == 0 {
				t.Fatalf("round %d: the message is not on ticket %d: %d tickets", round, tid, len(st))
			}
		}
	})
}
