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

// The connection takes the PIDs of the tickets it talks to from the node's cache. A
// ticket actor that stops (passivated when idle) leaves the cache; one that stopped
// before the cache heard of it answers a dead letter, and the connection finds the
// ticket again, which activates it anew. Either way the customer's message is stored
// as if nothing happened.
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
			// The stopped activation's PID left the cache (protoactor drops it on the
			// node it ran on; other nodes: TestStoppedActorLeavesOtherNodesPIDCache).
			cache, identity := r.node.Cluster.PidCache, strconv.FormatInt(tid, 10)
			eventually(t, "the stopped ticket's PID out of the cache", func() bool {
				cached, _ := cache.Get(identity, KindTicket)
				return cached == nil || !cached.Equal(pid)
			})
			if round == 2 {
				// A PID that stopped before the cache heard of it: the send meets a
				// dead letter and goes again after a fresh lookup.
				cache.Set(identity, KindTicket, pid)
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
