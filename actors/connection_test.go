package actors

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func inbound(num, pid, body string) engine.InboundMessage {
	return engine.InboundMessage{ProviderID: pid, From: engine.ChannelContact{Number: num, Name: "Cliente " + num}, Body: body, At: t0}
}

// eachTicketEvent hands fn every ticket event of the journal, in journal order.
func (r *liveRig) eachTicketEvent(t *testing.T, fn func(tid engine.ID, ev engine.TicketEvent)) {
	t.Helper()
	err := r.readTicketEvents(context.Background(), func(id engine.ID, ev engine.TicketEvent) error {
		fn(id, ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readTicketEvents is readJournal over the ticket streams, their events decoded.
func (r *liveRig) readTicketEvents(ctx context.Context, fn func(tid engine.ID, ev engine.TicketEvent) error) error {
	return r.readJournal(ctx, func(rec engine.RecordedEvent) error {
		var id engine.ID
		if _, err := fmt.Sscanf(rec.StreamID, "ticket/%d", &id); err != nil {
			return nil
		}
		ev, err := engine.DecodeTicketEvent(rec.Type, rec.Data)
		if err != nil {
			return err
		}
		return fn(id, ev)
	})
}

// readJournal hands fn every event of the journal up to its head when called, in
// position order. On PostgreSQL ReadAll stops at the journal's proven high-water
// mark, which may trail a commit the caller has just seen the effect of (a message
// acknowledged, a greeting sent): it waits, up to 10 s, for the readers to reach
// that head.
func (r *liveRig) readJournal(ctx context.Context, fn func(engine.RecordedEvent) error) error {
	head, err := r.journal.Head(ctx)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for after := int64(0); after < head; {
		recs, err := r.journal.ReadAll(ctx, after, 1000)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			if time.Now().After(deadline) {
				return fmt.Errorf("the journal's readers stay at %d, below its head %d", after, head)
			}
			time.Sleep(5 * time.Millisecond)
			continue
		}
		for _, rec := range recs {
			after = rec.Position
			if err := fn(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// ticketStates folds every ticket stream of the journal.
func (r *liveRig) ticketStates(t *testing.T) map[engine.ID]engine.TicketState {
	t.Helper()
	out := map[engine.ID]engine.TicketState{}
	r.eachTicketEvent(t, func(id engine.ID, ev engine.TicketEvent) { out[id] = engine.EvolveTicket(out[id], ev) })
	return out
}

// eachPartitioning runs fn on each database, with the connection actor taking every
// customer itself (1) and with the customers spread over 4 inbound partitions.
func eachPartitioning(t *testing.T, fn func(t *testing.T, d *db.DB, parts int)) {
	for _, parts := range []int{1, 4} {
		t.Run(fmt.Sprintf("partitions=%d", parts), func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, d *db.DB) { fn(t, d, parts) })
		})
	}
}

func TestConnectionOpensOneTicketPerContactUnderConcurrency(t *testing.T) {
	eachPartitioning(t, func(t *testing.T, d *db.DB, parts int) {
		r := newPartitionedRig(t, d, parts)
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
		ctx := context.Background()
		const customers, perCustomer = 100, 10
		var wg sync.WaitGroup
		errs := make(chan error, customers*perCustomer*2)
		for c := range customers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				num := fmt.Sprintf("webchat:v%03d", c)
				for m := range perCustomer {
					msg := inbound(num, fmt.Sprintf("%s-%d", num, m), fmt.Sprintf("msg %d", m))
					// Every message arrives twice: a provider's redelivery.
					for range 2 {
						if err := ch.sink.Inbound(ctx, msg); err != nil {
							errs <- err
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("inbound: %v", err)
		}
		states := r.ticketStates(t)
		if len(states) != customers {
			t.Fatalf("%d tickets, want %d", len(states), customers)
		}
		contacts := map[engine.ID]bool{}
		for id, st := range states {
			if contacts[st.ContactID] {
				t.Fatalf("contact %d has two tickets", st.ContactID)
			}
			contacts[st.ContactID] = true
			if st.Status != engine.StatusPending || st.ConnectionID != conn.ID || st.UnreadMessages != perCustomer {
				t.Fatalf("ticket %d: %+v", id, st)
			}
			if len(st.ProviderIDs) != perCustomer {
				t.Fatalf("ticket %d holds %d provider ids, want %d", id, len(st.ProviderIDs), perCustomer)
			}
		}
		// Messages are in order per ticket: message ids grow with the sequence number.
		byTicket := map[string][]int{}
		r.eachTicketEvent(t, func(tid engine.ID, ev engine.TicketEvent) {
			m, ok := ev.(engine.TicketMessageReceived)
			if !ok {
				return
			}
			var seq int
			fmt.Sscanf(m.ProviderID[len("webchat:v000")+1:], "%d", &seq)
			key := fmt.Sprintf("ticket %d %s", tid, m.ProviderID[:len("webchat:v000")])
			byTicket[key] = append(byTicket[key], seq)
		})
		for k, seqs := range byTicket {
			if !slices.IsSorted(seqs) || len(seqs) != perCustomer {
				t.Fatalf("%s received %v", k, seqs)
			}
		}
	})
}

func TestConnectionGreetingFarewellAndNextTicket(t *testing.T) {
	eachPartitioning(t, func(t *testing.T, d *db.DB, parts int) {
		r := newPartitionedRig(t, d, parts)
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket,
			GreetingMessage: "Olá! Em que podemos ajudar?", FarewellMessage: "Obrigado pelo contato!"})
		ctx := context.Background()
		num := "webchat:ana"
		if err := ch.sink.Inbound(ctx, inbound(num, "p1", "Oi")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "greeting sent", func() bool { return len(ch.sentTo(num)) == 1 })
		if got := ch.sentTo(num)[0].Body; got != "Olá! Em que podemos ajudar?" {
			t.Fatalf("greeting %q", got)
		}
		states := r.ticketStates(t)
		if len(states) != 1 {
			t.Fatalf("%d tickets", len(states))
		}
		var first engine.TicketState
		for _, st := range states {
			first = st
		}
		// The greeting answers the customer's message: it comes after it in the ticket.
		recs, err := r.journal.ReadStream(ctx, TicketStream(first.ID), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, rec := range recs {
			order = append(order, rec.Type)
		}
		if len(order) < 3 || order[1] != engine.EvTicketMessageReceived || order[2] != engine.EvTicketMessageSent {
			t.Fatalf("ticket events %v: want opened, the customer's message, then the greeting", order)
		}
		// The customer's first message reached its ticket once: one command, one
		// append, the greeting included.
		openedInOne := func(tid engine.ID) {
			t.Helper()
			appends := r.appends.of(TicketStream(tid))
			want := []string{engine.EvTicketOpened, engine.EvTicketMessageReceived, engine.EvTicketMessageSent,
				engine.EvTicketBotStepped}
			if len(appends) == 0 || !slices.Equal(appends[0], want) {
				t.Fatalf("ticket %d appends %v: want the first to be %v", tid, appends, want)
			}
		}
		openedInOne(first.ID)
		r.do(t, first.ID, engine.Accept{UserID: 1})
		// A second manual ticket for the same contact is refused while one is open.
		_, err = (Connections{Node: r.node}).OpenTicket(ctx, conn.ID, OpenTicketRequest{Principal: *adminP,
			ContactID: first.ContactID, UserID: 1, Status: engine.StatusOpen})
		if engine.CodeOf(err) != engine.ErrOtherOpenTicket {
			t.Fatalf("second ticket: %v", err)
		}
		r.do(t, first.ID, engine.SendMessage{MessageID: 900001, SenderID: 1, Body: "Bom dia"})
		r.do(t, first.ID, engine.Resolve{})
		eventually(t, "reply and farewell sent", func() bool { return len(ch.sentTo(num)) == 3 })
		sent := ch.sentTo(num)
		if sent[1].Body != "Bom dia" || sent[2].Body != "Obrigado pelo contato!" {
			t.Fatalf("sent %+v", sent)
		}
		// The reply got its sent ack from the channel's answer.
		eventually(t, "ack 1 on the reply", func() bool {
			st, err := r.tickets.State(ctx, 1, first.ID)
			return err == nil && st.Version > 0 && ackOf(r, t, first.ID, 900001) == engine.AckSent
		})
		// A redelivery of p1 after the resolve opens nothing new.
		if err := ch.sink.Inbound(ctx, inbound(num, "p1", "Oi")); err != nil {
			t.Fatal(err)
		}
		if n := len(r.ticketStates(t)); n != 1 {
			t.Fatalf("redelivery after resolve made %d tickets", n)
		}
		// A new message opens a new pending ticket, greeted again.
		if err := ch.sink.Inbound(ctx, inbound(num, "p2", "Voltei")); err != nil {
			t.Fatal(err)
		}
		states = r.ticketStates(t)
		if len(states) != 2 {
			t.Fatalf("%d tickets after a new message", len(states))
		}
		for id, st := range states {
			if id != first.ID && (st.Status != engine.StatusPending || st.UnreadMessages != 1) {
				t.Fatalf("new ticket %+v", st)
			}
		}
		eventually(t, "second greeting", func() bool { return len(ch.sentTo(num)) == 4 })
		for id := range states {
			if id != first.ID {
				openedInOne(id) // a returning customer's too
			}
		}
	})
}

func ackOf(r *liveRig, t *testing.T, ticket, msg engine.ID) int {
	st := r.ticketStates(t)[ticket]
	return st.Messages[msg].Ack
}

func TestConnectionRetriesTemporarySendFailures(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newLiveRig(t, d)
		_, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
		ch.mu.Lock()
		ch.failN = 3
		ch.mu.Unlock()
		ctx := context.Background()
		if err := ch.sink.Inbound(ctx, inbound("webchat:bia", "b1", "Oi")); err != nil {
			t.Fatal(err)
		}
		var tid engine.ID
		for id := range r.ticketStates(t) {
			tid = id
		}
		r.do(t, tid, engine.Accept{UserID: 1})
		r.do(t, tid, engine.SendMessage{MessageID: 777, SenderID: 1, Body: "Resposta"})
		eventually(t, "send after retries", func() bool { return len(ch.sentTo("webchat:bia")) == 1 })
		time.Sleep(50 * time.Millisecond) // any duplicate send would land by now
		if n := len(ch.sentTo("webchat:bia")); n != 1 {
			t.Fatalf("sent %d times", n)
		}
	})
}

// settableOutbox answers what the test put in it.
type settableOutbox struct {
	mu      sync.Mutex
	pending []engine.PendingOutbound
}

func (o *settableOutbox) PendingOutbound(context.Context, engine.ID, int) ([]engine.PendingOutbound, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.pending, nil
}

// A connection that starts sends what its tickets recorded but no channel accepted
// (its previous node died between the append and the send) — once, even when the
// ticket's dispatch hands it the same message again.
func TestConnectionResendsUnsentMessagesOnStart(t *testing.T) {
	d := dbtest.Open(t, db.SQLite)
	ctx := context.Background()
	ob := &settableOutbox{}
	r := newLiveRig(t, d, func(c *ConnectionConfig) { c.Outbox = ob })
	ct, _, err := r.contacts.FindOrCreateByNumber(ctx, 1, "webchat:late", "Atrasado")
	if err != nil {
		t.Fatal(err)
	}
	ob.pending = []engine.PendingOutbound{{TicketID: 1, MessageID: 41, ContactID: ct.ID, Body: "ficou para trás"}}
	_, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
	eventually(t, "the unsent message", func() bool { return len(ch.sentTo("webchat:late")) == 1 })
	if got := ch.sentTo("webchat:late")[0]; got.MessageID != 41 || got.Body != "ficou para trás" {
		t.Fatalf("sent %+v", got)
	}
}

// stallingContacts holds FindOrCreateByNumber for one number until release is
// closed, reporting on entered when it starts waiting.
type stallingContacts struct {
	engine.ContactStore
	number  string
	entered chan struct{}
	release chan struct{}
	off     atomic.Bool // when set, nothing stalls
}

func (s *stallingContacts) FindOrCreateByNumber(ctx context.Context, companyID engine.ID, number, name string) (engine.Contact, bool, error) {
	if number == s.number && !s.off.Load() {
		s.entered <- struct{}{}
		<-s.release
	}
	return s.ContactStore.FindOrCreateByNumber(ctx, companyID, number, name)
}

// receivedOrder lists the provider ids of the customer messages the journal holds,
// in journal order.
func (r *liveRig) receivedOrder(t *testing.T) []string {
	t.Helper()
	var out []string
	r.eachTicketEvent(t, func(_ engine.ID, ev engine.TicketEvent) {
		if m, ok := ev.(engine.TicketMessageReceived); ok {
			out = append(out, m.ProviderID)
		}
	})
	return out
}

// A customer the actor does not know yet is looked up outside the actor: while
// that lookup stalls, a known customer's messages are recorded; the newcomer's
// messages then go in, in the order they arrived, on one ticket.
func TestConnectionNewcomerDoesNotHoldOthersBack(t *testing.T) {
	stall := &stallingContacts{number: "webchat:slow", entered: make(chan struct{}, 1), release: make(chan struct{})}
	r := newLiveRig(t, dbtest.Open(t, db.SQLite), func(c *ConnectionConfig) {
		stall.ContactStore = c.Contacts
		c.Contacts = stall
	})
	var once sync.Once
	free := func() { once.Do(func() { close(stall.release) }) }
	t.Cleanup(free) // a failure must not leave the lookup stalled (the rig waits for it)
	_, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
	ctx := context.Background()
	if err := ch.sink.Inbound(ctx, inbound("webchat:known", "k0", "oi")); err != nil {
		t.Fatal(err)
	}
	slow := make(chan error, 2)
	go func() { slow <- ch.sink.Inbound(ctx, inbound("webchat:slow", "s1", "primeira")) }()
	<-stall.entered
	go func() { slow <- ch.sink.Inbound(ctx, inbound("webchat:slow", "s2", "segunda")) }()

	othersGoOn(t, ch, "webchat:known", "k", 1, 5, slow, 30*time.Second)
	free()
	for range 2 {
		if err := <-slow; err != nil {
			t.Fatal(err)
		}
	}
	var order []string
	for _, pid := range r.receivedOrder(t) {
		if strings.HasPrefix(pid, "s") {
			order = append(order, pid)
		}
	}
	if len(order) != 2 || order[0] != "s1" || order[1] != "s2" {
		t.Fatalf("newcomer's messages stored as %v, want [s1 s2]", order)
	}
	if n := len(r.ticketStates(t)); n != 2 {
		t.Fatalf("%d tickets, want 2 (one per customer)", n)
	}
}

// Sends to one customer go out one at a time, in order: while the first reply is
// with the channel the next two wait; another customer's reply does not.
func TestConnectionSendsInOrderPerRecipient(t *testing.T) {
	r := newLiveRig(t, dbtest.Open(t, db.SQLite))
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // a failure must not leave a send blocked (the rig waits for it)
	var mu sync.Mutex
	var tried []string
	r.factory.mu.Lock()
	r.factory.onSend = func(_ context.Context, m engine.OutboundMessage) error {
		mu.Lock()
		tried = append(tried, m.To+" "+m.Body)
		mu.Unlock()
		if m.Body == "a1" {
			<-release
		}
		return nil
	}
	r.factory.mu.Unlock()
	_, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
	ctx := context.Background()
	tids := map[string]engine.ID{}
	for _, num := range []string{"webchat:a", "webchat:b"} {
		if err := ch.sink.Inbound(ctx, inbound(num, num+"-1", "oi")); err != nil {
			t.Fatal(err)
		}
	}
	for id, st := range r.ticketStates(t) {
		c, err := r.contacts.Get(ctx, 1, st.ContactID)
		if err != nil {
			t.Fatal(err)
		}
		tids[c.Number] = id
	}
	send := func(num, body string, mid engine.ID) {
		t.Helper()
		r.do(t, tids[num], engine.SendMessage{MessageID: mid, SenderID: 1, Body: body})
	}
	for _, num := range []string{"webchat:a", "webchat:b"} {
		r.do(t, tids[num], engine.Accept{UserID: 1})
	}
	send("webchat:a", "a1", 800001)
	eventually(t, "a1 with the channel", func() bool { mu.Lock(); defer mu.Unlock(); return len(tried) == 1 })
	send("webchat:a", "a2", 800002)
	send("webchat:a", "a3", 800003)
	send("webchat:b", "b1", 800004)
	eventually(t, "b1 sent while a1 is with the channel", func() bool { return len(ch.sentTo("webchat:b")) == 1 })
	mu.Lock()
	early := append([]string(nil), tried...)
	mu.Unlock()
	if len(early) != 2 || early[1] != "webchat:b b1" {
		t.Fatalf("tried %v while a1 was with the channel, want [a1 b1]", early)
	}
	free()
	eventually(t, "a's three replies sent", func() bool { return len(ch.sentTo("webchat:a")) == 3 })
	var bodies []string
	for _, m := range ch.sentTo("webchat:a") {
		bodies = append(bodies, m.Body)
	}
	if !slices.Equal(bodies, []string{"a1", "a2", "a3"}) {
		t.Fatalf("sent to a in order %v", bodies)
	}
}

// A number being resolved keeps its messages in order even when a reply to it taught
// the actor the contact meanwhile (numberOf): the next message waits on the same
// lookup instead of overtaking the stalled one.
func TestConnectionNewcomerOrderSurvivesAReply(t *testing.T) {
	const num = "webchat:reply"
	stall := &stallingContacts{number: num, entered: make(chan struct{}, 1), release: make(chan struct{})}
	stall.off.Store(true)
	r := newLiveRig(t, dbtest.Open(t, db.SQLite), func(c *ConnectionConfig) {
		stall.ContactStore = c.Contacts
		c.Contacts = stall
	})
	var once sync.Once
	free := func() { once.Do(func() { close(stall.release) }) }
	t.Cleanup(free)
	conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
	ctx := context.Background()
	if err := ch.sink.Inbound(ctx, inbound(num, "m1", "um")); err != nil {
		t.Fatal(err)
	}
	tid := r.onlyTicket(t).ID
	r.do(t, tid, engine.Accept{UserID: 1})
	ch = r.restartActor(t, conn) // the new activation does not know the number
	stall.off.Store(false)
	m2 := make(chan error, 1)
	go func() { m2 <- ch.sink.Inbound(ctx, inbound(num, "m2", "dois")) }()
	<-stall.entered
	r.do(t, tid, engine.SendMessage{MessageID: 660001, SenderID: 1, Body: "resposta"})
	eventually(t, "the reply sent", func() bool { return len(ch.sentTo(num)) == 1 })
	m3 := make(chan error, 1)
	go func() { m3 <- ch.sink.Inbound(ctx, inbound(num, "m3", "três")) }()
	select {
	case err := <-m3:
		t.Fatalf("m3 answered (%v) while m2 was still being resolved", err)
	case <-time.After(200 * time.Millisecond):
	}
	free()
	for _, c := range []chan error{m2, m3} {
		if err := <-c; err != nil {
			t.Fatal(err)
		}
	}
	if got := r.receivedOrder(t); !slices.Equal(got, []string{"m1", "m2", "m3"}) {
		t.Fatalf("stored %v, want [m1 m2 m3]", got)
	}
}

// A reply that fails for a moment keeps its place: the next one to the same customer
// waits for its retry instead of overtaking it.
func TestConnectionRetryKeepsItsPlaceInTheLane(t *testing.T) {
	r := newLiveRig(t, dbtest.Open(t, db.SQLite))
	var failed atomic.Bool
	r.factory.mu.Lock()
	r.factory.onSend = func(_ context.Context, m engine.OutboundMessage) error {
		if m.Body == "r1" && failed.CompareAndSwap(false, true) {
			return engine.ErrChannelTemporary
		}
		return nil
	}
	r.factory.mu.Unlock()
	_, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
	const num = "webchat:retry"
	if err := ch.sink.Inbound(context.Background(), inbound(num, "x1", "oi")); err != nil {
		t.Fatal(err)
	}
	tid := r.onlyTicket(t).ID
	r.do(t, tid, engine.Accept{UserID: 1})
	r.do(t, tid, engine.SendMessage{MessageID: 650001, SenderID: 1, Body: "r1"})
	r.do(t, tid, engine.SendMessage{MessageID: 650002, SenderID: 1, Body: "r2"})
	eventually(t, "both replies sent", func() bool { return len(ch.sentTo(num)) == 2 })
	if sent := ch.sentTo(num); sent[0].Body != "r1" || sent[1].Body != "r2" || !failed.Load() {
		t.Fatalf("sent %q then %q (first attempt failed: %v), want r1 then r2", sent[0].Body, sent[1].Body, failed.Load())
	}
}

// A returning customer — their ticket resolved — gets a new ticket opened outside the
// actor: while that opening is held between its guard claim and its opening in the
// journal, another customer's messages are recorded; the returning customer's
// messages then go in, in the order they arrived, on one new ticket.
func TestConnectionReturningCustomerDoesNotHoldOthersBack(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		var (
			held    atomic.Int64 // the contact whose claims wait for release; 0: none
			entered = make(chan struct{}, 1)
			release = make(chan struct{})
			once    sync.Once
		)
		free := func() { once.Do(func() { close(release) }) }
		t.Cleanup(free) // a failure must not leave the opening held (the rig waits for it)
		r := newLiveRig(t, d, func(c *ConnectionConfig) {
			c.afterClaim = func(contactID engine.ID) {
				if contactID == held.Load() {
					entered <- struct{}{}
					<-release
				}
			}
		})
		_, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
		ctx := context.Background()
		first := twoCustomersWrite(t, r, ch, "webchat:back", "b1")
		r.do(t, first.ID, engine.Accept{UserID: 1})
		r.do(t, first.ID, engine.Resolve{})
		held.Store(first.ContactID)

		back := make(chan error, 2)
		go func() { back <- ch.sink.Inbound(ctx, inbound("webchat:back", "b2", "voltei")) }()
		<-entered
		go func() { back <- ch.sink.Inbound(ctx, inbound("webchat:back", "b3", "de novo")) }()
		othersGoOn(t, ch, "webchat:other", "o", 2, 4, back, 30*time.Second)
		free()
		for range 2 {
			if err := <-back; err != nil {
				t.Fatal(err)
			}
		}
		var order []string
		for _, pid := range r.receivedOrder(t) {
			if strings.HasPrefix(pid, "b") {
				order = append(order, pid)
			}
		}
		if len(order) != 3 || order[0] != "b1" || order[1] != "b2" || order[2] != "b3" {
			t.Fatalf("returning customer's messages stored as %v, want [b1 b2 b3]", order)
		}
		states := r.ticketStates(t)
		if len(states) != 3 {
			t.Fatalf("%d tickets, want 3 (the resolved one, its successor, the other customer's)", len(states))
		}
		for id, st := range states {
			if _, ok := st.ProviderIDs["b2"]; ok {
				if _, ok := st.ProviderIDs["b3"]; !ok || id == first.ID || st.Status != engine.StatusPending {
					t.Fatalf("b2 on ticket %d (%s), b3 not beside it, or on the resolved ticket %d", id, st.Status, first.ID)
				}
			}
		}
	})
}

// othersGoOn sends messages prefix+first … prefix+last from customer num and fails t
// unless they are all recorded within within while the held customer's messages stay
// unanswered (nothing on held): the connection actor goes on with other customers
// while one customer's work is held outside it.
func othersGoOn(t *testing.T, ch *recChannel, num, prefix string, first, last int, held <-chan error, within time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		for i := first; i <= last; i++ {
			if err := ch.sink.Inbound(context.Background(), inbound(num, fmt.Sprintf("%s%d", prefix, i), "mais")); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(within):
		t.Fatalf("%s's messages waited for another customer's held work", num)
	}
	select {
	case err := <-held:
		t.Fatalf("the held customer's message was answered (%v) while held", err)
	default:
	}
}

// stallingGets holds Contacts.Get of one contact (when set) until released.
type stallingGets struct {
	engine.ContactStore
	held    atomic.Int64
	entered chan struct{}
	release chan struct{}
}

func (s *stallingGets) Get(ctx context.Context, companyID, id engine.ID) (engine.Contact, error) {
	if id == s.held.Load() {
		s.entered <- struct{}{}
		<-s.release
	}
	return s.ContactStore.Get(ctx, companyID, id)
}

// Replies to a customer whose number a fresh activation does not know yet wait for
// that number outside the actor: while the read is held, another customer's
// messages are recorded; the replies then go out in the order they were written.
func TestConnectionReplyToUnknownNumberDoesNotHoldOthersBack(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		stall := &stallingGets{entered: make(chan struct{}, 1), release: make(chan struct{})}
		var once sync.Once
		free := func() { once.Do(func() { close(stall.release) }) }
		t.Cleanup(free) // a failure must not leave the read held (the rig waits for it)
		r := newLiveRig(t, d, func(c *ConnectionConfig) {
			stall.ContactStore = c.Contacts
			c.Contacts = stall
		})
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
		const num = "webchat:reply"
		st := twoCustomersWrite(t, r, ch, num, "r1")
		r.do(t, st.ID, engine.Accept{UserID: 1})
		ch = r.restartActor(t, conn)
		stall.held.Store(st.ContactID)
		r.do(t, st.ID, engine.SendMessage{MessageID: 880101, SenderID: 1, Body: "primeira"})
		r.do(t, st.ID, engine.SendMessage{MessageID: 880102, SenderID: 1, Body: "segunda"})
		<-stall.entered
		othersGoOn(t, ch, "webchat:other", "o", 2, 4, nil, 30*time.Second)
		if sent := ch.sentTo(num); len(sent) != 0 {
			t.Fatalf("sent %+v before the number was known", sent)
		}
		free()
		eventually(t, "both replies sent", func() bool { return len(ch.sentTo(num)) >= 2 })
		sent := ch.sentTo(num)
		if len(sent) != 2 || sent[0].Body != "primeira" || sent[1].Body != "segunda" {
			t.Fatalf("sent %+v, want primeira then segunda", sent)
		}
	})
}

// twoCustomersWrite has customer num write message pid and webchat:other write o1,
// and answers the ticket that holds pid.
func twoCustomersWrite(t *testing.T, r *liveRig, ch *recChannel, num, pid string) engine.TicketState {
	t.Helper()
	for _, m := range []engine.InboundMessage{inbound(num, pid, "oi"), inbound("webchat:other", "o1", "oi")} {
		if err := ch.sink.Inbound(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range r.ticketStates(t) {
		if _, ok := st.ProviderIDs[pid]; ok {
			return st
		}
	}
	t.Fatalf("no ticket holds %s", pid)
	return engine.TicketState{}
}
