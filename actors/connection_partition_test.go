package actors

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/rs/zerolog"

	"atende/actors/wire"
	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func TestPartitionOfIsStableAndSpreads(t *testing.T) {
	if InboundPartition("5511999990000", 1) != 0 || InboundPartition("5511999990000", 0) != 0 {
		t.Fatal("one partition (or none) is partition 0")
	}
	// The assignment is part of the cluster's contract: nodes of two releases must
	// send one customer to the same partition, so the hash (FNV-1a of the number)
	// may not change. These are its values.
	for _, c := range []struct {
		number  string
		n, want int
	}{{"5511999990000", 8, 4}, {"webchat:3f2a", 8, 7}, {"5511999990000", 16, 4}} {
		if got := InboundPartition(c.number, c.n); got != c.want {
			t.Fatalf("%s of %d: partition %d, want %d", c.number, c.n, got, c.want)
		}
	}
	seen := map[int]int{}
	for i := range 800 {
		num := fmt.Sprintf("55119%08d", i)
		k := InboundPartition(num, 8)
		if k < 0 || k >= 8 {
			t.Fatalf("%s: partition %d", num, k)
		}
		seen[k]++
	}
	for k := range 8 {
		if seen[k] < 50 { // 100 expected each
			t.Fatalf("partition %d got %d of 800 numbers: %v", k, seen[k], seen)
		}
	}
}

func TestParseInboundIdentity(t *testing.T) {
	if id, k, err := parseInboundIdentity(InboundIdentity(42, 7)); err != nil || id != 42 || k != 7 {
		t.Fatalf("round trip: %d %d %v", id, k, err)
	}
	for _, bad := range []string{"", "42", "/3", "42/", "x/1", "42/-1", "42/x", "42/1/2"} {
		if _, _, err := parseInboundIdentity(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// numberIn is a customer number of partition k of n.
func numberIn(t *testing.T, k, n int, prefix string) string {
	t.Helper()
	for i := range 10000 {
		num := fmt.Sprintf("%s%04d", prefix, i)
		if InboundPartition(num, n) == k {
			return num
		}
	}
	t.Fatalf("no number of partition %d", k)
	return ""
}

// The customers' messages reach the inbound partitions whichever way they come —
// the connection actor's own channel, or a web-hook's sink on any node — and a
// person's open goes to the partition of the contact's number, where that
// customer's ticket is known.
func TestPartitionsTakeTheCustomersWork(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		const parts = 4
		r := newPartitionedRig(t, d, parts)
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
		ctx := context.Background()
		remote := Connections{Node: r.node}.Sink(conn.ID)
		nums := make([]string, parts)
		for k := range parts {
			nums[k] = numberIn(t, k, parts, "webchat:p")
			sink := ch.sink
			if k%2 == 1 {
				sink = remote
			}
			if err := sink.Inbound(ctx, inbound(nums[k], fmt.Sprintf("m-%d", k), "Oi")); err != nil {
				t.Fatal(err)
			}
		}
		if got := r.node.ActorCounts()[KindInbound]; got != parts {
			t.Fatalf("%d inbound partitions active, want %d", got, parts)
		}
		states := r.ticketStates(t)
		if len(states) != parts {
			t.Fatalf("%d tickets, want %d", len(states), parts)
		}
		// A person asks for a ticket for the first customer, through the connection
		// actor (no number in the request): the partition that took the customer's
		// message answers that the contact has one already.
		var contactID engine.ID
		for _, st := range states {
			c, err := r.contacts.Get(ctx, 1, st.ContactID)
			if err != nil {
				t.Fatal(err)
			}
			if c.Number == nums[0] {
				contactID = c.ID
			}
		}
		if contactID == 0 {
			t.Fatalf("no ticket of %s in %+v", nums[0], states)
		}
		_, err := (Connections{Node: r.node}).OpenTicket(ctx, conn.ID, OpenTicketRequest{Principal: *adminP,
			ContactID: contactID, UserID: 1, Status: engine.StatusOpen})
		if engine.CodeOf(err) != engine.ErrOtherOpenTicket {
			t.Fatalf("open beside the customer's ticket: %v", err)
		}
		// A contact nobody wrote from gets the ticket; the customer's next message,
		// at the partition of the number, lands in it.
		fresh, err := r.contacts.Create(ctx, 1, engine.ContactInput{Name: "Nova", Number: numberIn(t, 2, parts, "55119")})
		if err != nil {
			t.Fatal(err)
		}
		opened, err := (Connections{Node: r.node}).OpenTicket(ctx, conn.ID, OpenTicketRequest{Principal: *adminP,
			ContactID: fresh.ID, UserID: 1, Status: engine.StatusOpen})
		if err != nil {
			t.Fatal(err)
		}
		if err := ch.sink.Inbound(ctx, inbound(fresh.Number, "m-fresh", "Recebi")); err != nil {
			t.Fatal(err)
		}
		st := r.ticketStates(t)[opened.Ticket.ID]
		if st.UnreadMessages != 1 || len(r.ticketStates(t)) != parts+1 {
			t.Fatalf("the customer's message did not land in the opened ticket: %+v", st)
		}
		// The channel's own commands are not a partition's.
		_, err = r.node.Call(ctx, KindInbound, InboundIdentity(conn.ID, 0), &wire.Command{Type: CmdConnectionDeliver})
		if engine.CodeOf(err) != engine.ErrValidation {
			t.Fatalf("deliver to a partition: %v", err)
		}
	})
}

// A partition reads its connection row again when the connection is restarted
// (after an edit): the next customer of a partition that greeted with the old
// message is greeted with the new one.
func TestPartitionsReloadTheConnectionOnRestart(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		const parts = 4
		r := newPartitionedRig(t, d, parts)
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket,
			GreetingMessage: "Olá, primeira versão"})
		ctx := context.Background()
		first, second := numberIn(t, 1, parts, "webchat:a"), numberIn(t, 1, parts, "webchat:b")
		if err := ch.sink.Inbound(ctx, inbound(first, "g1", "Oi")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "first greeting", func() bool { return len(ch.sentTo(first)) == 1 })
		if got := ch.sentTo(first)[0].Body; got != "Olá, primeira versão" {
			t.Fatalf("greeting %q", got)
		}
		in := engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket, GreetingMessage: "Olá, segunda versão",
			IsDefault: conn.IsDefault}
		if _, err := r.conns.Update(ctx, 1, conn.ID, in); err != nil {
			t.Fatal(err)
		}
		if err := (Connections{Node: r.node}).Restart(ctx, conn.ID); err != nil {
			t.Fatal(err)
		}
		ch = r.factory.get(conn.ID)
		<-ch.started
		if err := ch.sink.Inbound(ctx, inbound(second, "g2", "Oi")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "second greeting", func() bool { return len(ch.sentTo(second)) == 1 })
		if got := ch.sentTo(second)[0].Body; got != "Olá, segunda versão" {
			t.Fatalf("greeting after the edit %q", got)
		}
	})
}

// flakyLookups fails the connection row reads numbered in fail (1 is the first).
type flakyLookups struct {
	engine.ConnectionStore
	mu    sync.Mutex
	calls int
	fail  map[int]bool
}

func (f *flakyLookups) Lookup(ctx context.Context, id engine.ID) (engine.Connection, error) {
	f.mu.Lock()
	f.calls++
	failing := f.fail[f.calls]
	f.mu.Unlock()
	if failing {
		return engine.Connection{}, errors.New("database hiccup")
	}
	return f.ConnectionStore.Lookup(ctx, id)
}

// A partition that could not read its connection row when it started reads it on
// its next customer's message instead of refusing every customer.
func TestPartitionReadsItsRowAgainAfterAFailedStart(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		// Read 1 is the connection actor's start; read 2 the partition's.
		r := newPartitionedRig(t, d, 4, func(cc *ConnectionConfig) {
			cc.Connections = &flakyLookups{ConnectionStore: cc.Connections, fail: map[int]bool{2: true}}
		})
		conn, _ := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
		sink := Connections{Node: r.node}.Sink(conn.ID)
		if err := sink.Inbound(context.Background(), inbound("webchat:x1", "x1", "Oi")); err != nil {
			t.Fatalf("first message after the failed start: %v", err)
		}
		if n := len(r.ticketStates(t)); n != 1 {
			t.Fatalf("%d tickets", n)
		}
	})
}

// RoutesHere answers true on exactly the node that a call to the number's inbound
// partition reaches, and each node of two routes some numbers itself.
func TestRoutesHereIsWhereThePartitionRuns(t *testing.T) {
	a, b := twoNodes(t, KindInbound)
	// Eight partitions all land on one of two nodes once in 128 connections (the
	// members' ports are random): try a few connections.
	here := map[*Node]int{}
	for i := 0; i < 64*20 && (here[a] == 0 || here[b] == 0); i++ {
		conn := engine.ID(1 + i/64)
		number := fmt.Sprintf("webchat:%d", i%64)
		onA, onB := a.RoutesHere(conn, number), b.RoutesHere(conn, number)
		if onA == onB {
			t.Fatalf("%s: routed here by a %v, by b %v; want exactly one", number, onA, onB)
		}
		identity := InboundIdentity(conn, InboundPartition(number, 8))
		if _, err := a.Call(context.Background(), KindInbound, identity, &wire.Command{Type: "echo"}); err != nil {
			t.Fatal(err)
		}
		pid, ok := a.Cluster.PidCache.Get(identity, KindInbound)
		if !ok {
			t.Fatalf("%s: no PID cached after the call", identity)
		}
		if want := a.System.Address(); (pid.Address == want) != onA {
			t.Fatalf("%s: ran at %s, a says routed here %v", identity, pid.Address, onA)
		}
		if onA {
			here[a]++
		} else {
			here[b]++
		}
	}
	if here[a] == 0 || here[b] == 0 {
		t.Fatalf("numbers routed by a %d, by b %d: every partition on one node", here[a], here[b])
	}

	one, err := StartNode(NodeConfig{Logger: zerolog.Nop(), Provider: test.NewTestProvider(test.NewInMemAgent())})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Stop(false)
	if !one.RoutesHere(1, "webchat:x") {
		t.Fatal("with one partition the number chooses nothing: want true")
	}
}

// twoNodes starts two nodes of one in-memory cluster, each hosting echo actors of
// kind, with eight inbound partitions per connection, and waits until they see each
// other.
func twoNodes(t *testing.T, kind string) (a, b *Node) {
	t.Helper()
	agent := test.NewInMemAgent()
	start := func() *Node {
		n, err := StartNode(NodeConfig{Logger: zerolog.Nop(), Provider: test.NewTestProvider(agent), InboundPartitions: 8,
			Kinds: []*cluster.Kind{cluster.NewKind(kind, actor.PropsFromProducer(func() actor.Actor { return &echo{} }))}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Stop(false) })
		return n
	}
	a, b = start(), start()
	for deadline := time.Now().Add(30 * time.Second); len(a.Members(5*time.Second)) != 2 || len(b.Members(5*time.Second)) != 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the two nodes never saw each other")
		}
	}
	return a, b
}

// countingIDs hands out 1, 2, 3, … and remembers how many it gave.
type countingIDs struct{ next int64 }

func (c *countingIDs) Next(context.Context, string) (engine.ID, error) {
	c.next++
	return c.next, nil
}

// A connection's new ticket takes an id whose ticket actor the cluster places on the
// connection's node, passing over at most ticketHereTries-1 ids; a call to that
// ticket then runs there. With one member, or no node, the first id is kept.
func TestNewTicketIDPlacedHere(t *testing.T) {
	a, b := twoNodes(t, KindTicket)
	ctx := context.Background()
	for _, n := range []*Node{a, b} {
		ids := &countingIDs{}
		for i := 0; i < 20; i++ {
			before := ids.next
			tid, err := newTicketID(ctx, ids, n)
			if err != nil {
				t.Fatal(err)
			}
			if tid != ids.next || tid-before > ticketHereTries {
				t.Fatalf("ticket %d after id %d: want the last id drawn, at most %d draws", tid, before, ticketHereTries)
			}
			identity := strconv.FormatInt(tid, 10)
			if _, err := a.Call(ctx, KindTicket, identity, &wire.Command{Type: "echo"}); err != nil {
				t.Fatal(err)
			}
			pid, ok := a.Cluster.PidCache.Get(identity, KindTicket)
			if !ok {
				t.Fatalf("ticket %d: no PID cached after the call", tid)
			}
			// Two members: each draw lands on n half the time, so sixteen misses
			// in a row come once in 65,536 tickets.
			if pid.Address != n.System.Address() && tid-before < ticketHereTries {
				t.Fatalf("ticket %d drawn by %s ran at %s", tid, n.System.Address(), pid.Address)
			}
		}
		// About half the draws are passed over: twenty tickets with at most one
		// id passed over come once in 50,000 runs.
		if ids.next < 22 {
			t.Errorf("20 tickets took %d ids: with two members about half the draws are passed over", ids.next)
		}
	}

	ids := &countingIDs{}
	if tid, err := newTicketID(ctx, ids, nil); err != nil || tid != 1 {
		t.Fatalf("without a node: ticket %d (%v), want 1", tid, err)
	}
	one, err := StartNode(NodeConfig{Logger: zerolog.Nop(), Provider: test.NewTestProvider(test.NewInMemAgent()),
		Kinds: []*cluster.Kind{cluster.NewKind(KindTicket, actor.PropsFromProducer(func() actor.Actor { return &echo{} }))}})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Stop(false)
	for want := engine.ID(2); want < 12; want++ {
		if tid, err := newTicketID(ctx, ids, one); err != nil || tid != want {
			t.Fatalf("one member: ticket %d (%v), want %d: no id passed over", tid, err, want)
		}
	}
}
