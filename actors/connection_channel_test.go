package actors

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

// journalRecord folds the whole journal: ticket states and the outbound messages
// recorded, as the read model would hold them. It stands in for the read model in
// these tests (persistence/readmodel tests its own Locator and Outbox).
type journalRecord struct {
	states map[engine.ID]engine.TicketState
	sent   map[engine.ID]engine.PendingOutbound // messages of ours without a provider id
}

func readRecord(ctx context.Context, r *liveRig) (journalRecord, error) {
	rec := journalRecord{states: map[engine.ID]engine.TicketState{}, sent: map[engine.ID]engine.PendingOutbound{}}
	err := r.readTicketEvents(ctx, func(id engine.ID, ev engine.TicketEvent) error {
		st := engine.EvolveTicket(rec.states[id], ev)
		rec.states[id] = st
		if m, ok := ev.(engine.TicketMessageSent); ok && m.ProviderID == "" {
			rec.sent[m.MessageID] = engine.PendingOutbound{TicketID: id, MessageID: m.MessageID, ContactID: st.ContactID,
				Body: m.Body, MediaType: m.MediaType, MediaURL: m.MediaURL, QuotedID: m.QuotedID}
		}
		return nil
	})
	return rec, err
}

// journalLocator is engine.ProviderLocator over the journal; it counts its calls.
type journalLocator struct {
	r     *liveRig
	mu    sync.Mutex
	calls int
	byPID map[string]int // calls per provider id
}

func (l *journalLocator) ByProviderID(ctx context.Context, conn engine.ID, pid string) (engine.ID, engine.ID, bool, error) {
	l.mu.Lock()
	l.calls++
	if l.byPID == nil {
		l.byPID = map[string]int{}
	}
	l.byPID[pid]++
	l.mu.Unlock()
	rec, err := readRecord(ctx, l.r)
	if err != nil {
		return 0, 0, false, err
	}
	for tid, st := range rec.states {
		if mid, ok := st.ProviderIDs[pid]; ok && st.ConnectionID == conn {
			return tid, mid, true, nil
		}
	}
	return 0, 0, false, nil
}

// journalOutbox is engine.Outbox over the journal: ours at ack 0, not failed.
type journalOutbox struct{ r *liveRig }

func (o journalOutbox) PendingOutbound(ctx context.Context, conn engine.ID, limit int) ([]engine.PendingOutbound, error) {
	rec, err := readRecord(ctx, o.r)
	if err != nil {
		return nil, err
	}
	var out []engine.PendingOutbound
	for mid, p := range rec.sent {
		st := rec.states[p.TicketID]
		m := st.Messages[mid]
		if st.ConnectionID == conn && st.Exists() && m.Ack == engine.AckPending && !m.Failed && !m.Deleted {
			out = append(out, p)
		}
	}
	return out, nil
}

// restartActor stops the connection's actor — its memory goes with it, as on a
// crash or a hand-over — and activates it again; it returns the new channel.
func (r *liveRig) restartActor(t *testing.T, conn engine.Connection) *recChannel {
	t.Helper()
	old := r.factory.get(conn.ID)
	pid := r.node.Cluster.Get(strconv.FormatInt(conn.ID, 10), KindConnection)
	if pid == nil {
		t.Fatal("no connection actor")
	}
	if err := r.node.System.Root.PoisonFuture(pid).Wait(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a new activation", func() bool {
		_, err := (Connections{Node: r.node}).Start(context.Background(), conn.ID)
		return err == nil && r.factory.get(conn.ID) != old
	})
	ch := r.factory.get(conn.ID)
	select {
	case <-ch.started:
	case <-time.After(5 * time.Second):
		t.Fatal("channel never started again")
	}
	return ch
}

// createConnection creates a connection row with media and queues, then starts it.
func (r *liveRig) createConnection(t *testing.T, in engine.ConnectionInput, greetingMedia, farewellMedia string) (engine.Connection, *recChannel) {
	t.Helper()
	ctx := context.Background()
	c, err := r.conns.Create(ctx, 1, in)
	if err != nil {
		t.Fatal(err)
	}
	if greetingMedia != "" || farewellMedia != "" {
		if _, _, err := r.conns.SetMedia(ctx, 1, c.ID, &greetingMedia, &farewellMedia); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := (Connections{Node: r.node}).Start(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	ch := r.factory.get(c.ID)
	select {
	case <-ch.started:
	case <-time.After(5 * time.Second):
		t.Fatal("channel never started")
	}
	return c, ch
}

func (r *liveRig) events(t *testing.T, tid engine.ID) []engine.TicketEvent {
	t.Helper()
	recs, err := r.journal.ReadStream(context.Background(), TicketStream(tid), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []engine.TicketEvent
	for _, rec := range recs {
		ev, err := engine.DecodeTicketEvent(rec.Type, rec.Data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

// onlyTicket returns the one ticket of the journal.
func (r *liveRig) onlyTicket(t *testing.T) engine.TicketState {
	t.Helper()
	states := r.ticketStates(t)
	if len(states) != 1 {
		t.Fatalf("%d tickets, want 1", len(states))
	}
	for _, st := range states {
		return st
	}
	return engine.TicketState{}
}

var adminP = &engine.Principal{UserID: 1, CompanyID: 1, Profile: engine.ProfileAdmin}

// do runs cmd on ticket tid of tenant 1 as the administrator; a refusal fails t.
func (r *liveRig) do(t *testing.T, tid engine.ID, cmd engine.TicketCommand) {
	t.Helper()
	if _, err := r.tickets.Do(context.Background(), 1, tid, adminP, 0, cmd); err != nil {
		t.Fatalf("%s on ticket %d: %v", cmd.CommandName(), tid, err)
	}
}

// newLocatorRig is a rig whose connections find messages through the journal
// (journalLocator), with one web chat connection started.
func newLocatorRig(t *testing.T, d *db.DB) (*liveRig, *journalLocator, engine.Connection, *recChannel) {
	t.Helper()
	loc := &journalLocator{}
	r := newLiveRig(t, d, func(c *ConnectionConfig) { c.Locator = loc })
	loc.r = r
	conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
	return r, loc, conn, ch
}

func TestConnectionGreetingAndFarewellCarryImages(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newLiveRig(t, d)
		// A greeting with text and image; a farewell that is an image alone.
		_, ch := r.createConnection(t, engine.ConnectionInput{Name: "Loja", Channel: engine.ChannelSocket,
			GreetingMessage: "Olá! Veja nosso catálogo"}, "1/boas-vindas.png", "1/ate-logo.jpg")
		ctx := context.Background()
		num := "webchat:img"
		if err := ch.sink.Inbound(ctx, inbound(num, "i1", "Oi")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "greeting", func() bool { return len(ch.sentTo(num)) == 1 })
		g := ch.sentTo(num)[0]
		if g.Body != "Olá! Veja nosso catálogo" || g.MediaType != engine.MediaImage || g.MediaPath != "1/boas-vindas.png" {
			t.Fatalf("greeting %+v", g)
		}
		tid := r.onlyTicket(t).ID
		r.do(t, tid, engine.Accept{UserID: 1})
		r.do(t, tid, engine.Resolve{})
		eventually(t, "farewell", func() bool { return len(ch.sentTo(num)) == 2 })
		f := ch.sentTo(num)[1]
		if f.Body != "" || f.MediaType != engine.MediaImage || f.MediaPath != "1/ate-logo.jpg" {
			t.Fatalf("farewell %+v", f)
		}
		// Both are recorded on the ticket as automatic image messages.
		var images int
		for _, ev := range r.events(t, tid) {
			if m, ok := ev.(engine.TicketMessageSent); ok && m.Automatic && m.MediaType == engine.MediaImage {
				images++
			}
		}
		if images != 2 {
			t.Fatalf("%d automatic images on the ticket", images)
		}
	})
}

func TestConnectionWithoutGreetingSendsNothing(t *testing.T) {
	r := newLiveRig(t, dbtest.Open(t, db.SQLite))
	_, ch := r.createConnection(t, engine.ConnectionInput{Name: "Muda", Channel: engine.ChannelSocket,
		GreetingMessage: "   "}, "", "")
	if err := ch.sink.Inbound(context.Background(), inbound("webchat:q", "q1", "Oi")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(ch.sentTo("webchat:q")); n != 0 {
		t.Fatalf("%d automatic messages for a blank greeting without image", n)
	}
	if st := r.onlyTicket(t); len(st.Messages) != 1 {
		t.Fatalf("ticket holds %d messages", len(st.Messages))
	}
}

func deletedIDs(evs []engine.TicketEvent) []engine.ID {
	var out []engine.ID
	for _, ev := range evs {
		if d, ok := ev.(engine.TicketMessageDeleted); ok {
			if d.ByUserID != 0 {
				return append(out, -1)
			}
			out = append(out, d.MessageID)
		}
	}
	return out
}

func revoke(num, revoked string) engine.InboundMessage {
	return engine.InboundMessage{ProviderID: "rv-" + revoked, RevokedProviderID: revoked,
		From: engine.ChannelContact{Number: num}, At: t0}
}

func TestConnectionRevokeDeletesTheCustomersMessage(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r, _, conn, ch := newLocatorRig(t, d)
		ctx := context.Background()
		num := "webchat:rv"
		for _, m := range []engine.InboundMessage{inbound(num, "m1", "primeira"), inbound(num, "m2", "segunda")} {
			if err := ch.sink.Inbound(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		st := r.onlyTicket(t)
		m1 := st.ProviderIDs["m1"]
		// Revoked twice (a redelivery), plus a revoke of an id nobody stored.
		for _, m := range []engine.InboundMessage{revoke(num, "m1"), revoke(num, "m1"), revoke(num, "nunca-existiu")} {
			if err := ch.sink.Inbound(ctx, m); err != nil {
				t.Fatalf("revoke %s: %v", m.RevokedProviderID, err)
			}
		}
		if got := deletedIDs(r.events(t, st.ID)); len(got) != 1 || got[0] != m1 {
			t.Fatalf("deleted %v, want [%d] by the customer (user 0)", got, m1)
		}
		if n := len(r.ticketStates(t)); n != 1 {
			t.Fatalf("a revoke opened tickets: %d", n)
		}
		// The customer's revoke of our own message is not honoured.
		r.do(t, st.ID, engine.Accept{UserID: 1})
		r.do(t, st.ID, engine.SendMessage{MessageID: 880001, SenderID: 1, Body: "oi"})
		eventually(t, "reply acked", func() bool { return ackOf(r, t, st.ID, 880001) == engine.AckSent })
		if err := ch.sink.Inbound(ctx, revoke(num, "out-880001")); err != nil {
			t.Fatal(err)
		}
		// A person may not issue the channel's command.
		if _, err := r.tickets.Do(ctx, 1, st.ID, adminP, 0, engine.RevokeMessage{ProviderID: "m2"}); engine.CodeOf(err) != engine.ErrNoPermission {
			t.Fatalf("revoke by a person: %v", err)
		}
		if got := deletedIDs(r.events(t, st.ID)); len(got) != 1 {
			t.Fatalf("deleted %v after a forged revoke", got)
		}
		// After a restart, with the ticket resolved and the next one open, the revoke
		// of m2 still finds it, through the durable record.
		r.do(t, st.ID, engine.Resolve{})
		if err := ch.sink.Inbound(ctx, inbound(num, "m3", "nova conversa")); err != nil {
			t.Fatal(err)
		}
		ch = r.restartActor(t, conn)
		if err := ch.sink.Inbound(ctx, revoke(num, "m2")); err != nil {
			t.Fatal(err)
		}
		if got := deletedIDs(r.events(t, st.ID)); len(got) != 2 || got[1] != st.ProviderIDs["m2"] {
			t.Fatalf("deleted %v on the resolved ticket", got)
		}
		// Hostile: an overlong id is refused, not stored.
		if err := ch.sink.Inbound(ctx, revoke(num, strings.Repeat("x", 300))); engine.CodeOf(err) != engine.ErrValidation {
			t.Fatalf("overlong revoke: %v", err)
		}
	})
}

// After a restart the actor no longer remembers what the previous activation sent:
// receipts and quotes of those messages find them through the locator, and a late
// redelivery of an inbound message stored in an earlier ticket is acknowledged
// without storing it again.
func TestConnectionAfterRestartUsesTheLocator(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r, _, conn, ch := newLocatorRig(t, d)
		ctx := context.Background()
		num := "webchat:rs"
		if err := ch.sink.Inbound(ctx, inbound(num, "a1", "Oi")); err != nil {
			t.Fatal(err)
		}
		first := r.onlyTicket(t)
		r.do(t, first.ID, engine.Accept{UserID: 1})
		r.do(t, first.ID, engine.SendMessage{MessageID: 990001, SenderID: 1, Body: "Olá"})
		eventually(t, "ack 1", func() bool { return ackOf(r, t, first.ID, 990001) == engine.AckSent })

		ch = r.restartActor(t, conn)
		// (a) the read receipt of the earlier send moves its ack.
		if err := ch.sink.Receipt(ctx, engine.Receipt{ProviderID: "out-990001", Ack: engine.AckRead}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "ack 3 after restart", func() bool { return ackOf(r, t, first.ID, 990001) == engine.AckRead })
		// (b) a quote of it keeps its link.
		q := inbound(num, "a2", "sobre isso")
		q.QuotedProviderID = "out-990001"
		if err := ch.sink.Inbound(ctx, q); err != nil {
			t.Fatal(err)
		}
		var quoted engine.ID = -1
		for _, ev := range r.events(t, first.ID) {
			if m, ok := ev.(engine.TicketMessageReceived); ok && m.ProviderID == "a2" {
				quoted = m.QuotedID
			}
		}
		if quoted != 990001 {
			t.Fatalf("quote after restart points at %d", quoted)
		}
		// (c) resolve, open the next ticket, restart, then redeliver a1 and a2.
		r.do(t, first.ID, engine.Resolve{})
		if err := ch.sink.Inbound(ctx, inbound(num, "b1", "outra coisa")); err != nil {
			t.Fatal(err)
		}
		ch = r.restartActor(t, conn)
		for _, pid := range []string{"a1", "a2"} {
			if err := ch.sink.Inbound(ctx, inbound(num, pid, "repetida")); err != nil {
				t.Fatal(err)
			}
		}
		states := r.ticketStates(t)
		if len(states) != 2 {
			t.Fatalf("%d tickets after late redeliveries", len(states))
		}
		for id, st := range states {
			if id != first.ID && (len(st.ProviderIDs) != 1 || st.ProviderIDs["b1"] == 0) {
				t.Fatalf("the next ticket stored redeliveries: %v", st.ProviderIDs)
			}
		}
		// A deleted ticket's messages are not stored again either (no restart needed:
		// the refusal asks the locator before opening a successor).
		var second engine.ID
		for id := range states {
			if id != first.ID {
				second = id
			}
		}
		r.do(t, second, engine.Delete{})
		if err := ch.sink.Inbound(ctx, inbound(num, "b1", "repetida")); err != nil {
			t.Fatal(err)
		}
		if n := len(r.ticketStates(t)); n != 2 {
			t.Fatalf("redelivery on a deleted ticket made %d tickets", n)
		}
		// A new message still opens a new ticket.
		if err := ch.sink.Inbound(ctx, inbound(num, "c1", "nova")); err != nil {
			t.Fatal(err)
		}
		if n := len(r.ticketStates(t)); n != 3 {
			t.Fatalf("%d tickets after a new message", n)
		}
	})
}

// The hot path does not ask the locator: messages newer than their ticket, and
// receipts of messages this activation sent, are answered from memory.
func TestConnectionLocatorOnlyOnMisses(t *testing.T) {
	_, loc, _, ch := newLocatorRig(t, dbtest.Open(t, db.SQLite))
	ctx := context.Background()
	num := "webchat:hot"
	at := time.Now().Add(time.Hour) // newer than any ticket
	for i := range 20 {
		m := inbound(num, fmt.Sprintf("h%d", i), "oi")
		m.At = at
		if err := ch.sink.Inbound(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	loc.mu.Lock()
	calls := loc.calls
	loc.mu.Unlock()
	// None: the contact is created by its first message (nothing of it can be stored
	// yet), and the 20 messages are newer than its ticket.
	if calls != 0 {
		t.Fatalf("%d locator calls for 20 messages", calls)
	}
}

func TestConnectionQueueMenu(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newLiveRig(t, d)
		ctx := context.Background()
		queues := store.NewQueues(d, nil)
		vendas, err := queues.Create(ctx, 1, engine.QueueInput{Name: "Vendas", Color: "#ff0000", GreetingMessage: "v"})
		if err != nil {
			t.Fatal(err)
		}
		suporte, err := queues.Create(ctx, 1, engine.QueueInput{Name: "Suporte", Color: "#00ff00", GreetingMessage: "s"})
		if err != nil {
			t.Fatal(err)
		}
		_, ch := r.createConnection(t, engine.ConnectionInput{Name: "Central", Channel: engine.ChannelSocket,
			GreetingMessage: "Bem-vindo!", QueueIDs: []engine.ID{vendas.ID, suporte.ID}}, "", "")
		num := "webchat:menu"
		say := func(pid, body string) {
			t.Helper()
			if err := ch.sink.Inbound(ctx, inbound(num, pid, body)); err != nil {
				t.Fatal(err)
			}
		}
		say("u1", "Oi")
		eventually(t, "greeting with menu", func() bool { return len(ch.sentTo(num)) == 1 })
		menu := "1 - Vendas\n2 - Suporte"
		if g := ch.sentTo(num)[0].Body; g != "Bem-vindo!\n\n"+menu {
			t.Fatalf("greeting %q", g)
		}
		tid := r.onlyTicket(t).ID
		// Invalid answers get the menu again, once per message — a redelivery of the
		// same message is not a new answer.
		say("u2", "3")
		say("u2", "3")
		say("u3", "quero falar com alguém; DROP TABLE")
		eventually(t, "menu sent again twice", func() bool { return len(ch.sentTo(num)) == 3 })
		for _, m := range ch.sentTo(num)[1:] {
			if !strings.HasPrefix(m.Body, "Opção inválida") || !strings.HasSuffix(m.Body, menu) {
				t.Fatalf("menu again %q", m.Body)
			}
		}
		if st := r.ticketStates(t)[tid]; st.QueueID != 0 || st.Status != engine.StatusPending {
			t.Fatalf("ticket moved on an invalid answer: %+v", st)
		}
		say("u4", " 2 ")
		eventually(t, "moved to Suporte", func() bool { return r.ticketStates(t)[tid].QueueID == suporte.ID })
		if st := r.ticketStates(t)[tid]; st.Status != engine.StatusPending || st.UserID != 0 {
			t.Fatalf("after the choice %+v", st)
		}
		// Entering the queue, the customer gets the queue's greeting.
		eventually(t, "queue greeting", func() bool { return len(ch.sentTo(num)) == 4 })
		if g := ch.sentTo(num)[3].Body; g != "s" {
			t.Fatalf("queue greeting %q", g)
		}
		// Once in a queue, numbers are just messages.
		say("u5", "1")
		time.Sleep(100 * time.Millisecond)
		if st := r.ticketStates(t)[tid]; st.QueueID != suporte.ID {
			t.Fatalf("second answer moved the ticket to %d", st.QueueID)
		}
		if n := len(ch.sentTo(num)); n != 4 {
			t.Fatalf("%d automatic messages after the choice", n)
		}
		// A group's chatter does not get the menu again and again.
		group := "120363025246125888"
		for i, body := range []string{"bom dia", "alguém?", "9"} {
			m := inbound(group, fmt.Sprintf("g%d", i), body)
			m.From.IsGroup = true
			if err := ch.sink.Inbound(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		eventually(t, "the group's greeting", func() bool { return len(ch.sentTo(group)) == 1 })
		time.Sleep(100 * time.Millisecond)
		if n := len(ch.sentTo(group)); n != 1 {
			t.Fatalf("%d automatic messages to the group", n)
		}
	})
}

func TestMenuChoice(t *testing.T) {
	for in, want := range map[string]int{"1": 1, " 2\n": 2, "2.": 2, "1)": 1, "0": 0, "3": 3, "-1": -1, "+1": -1,
		"": -1, "um": -1, "1 2": -1, "01": 1, "9999999999999999999": -1, "１": -1} {
		n, ok := engine.ParseMenuAnswer(in)
		if (want == -1) == ok || (ok && n != want) {
			t.Errorf("ParseMenuAnswer(%q) = %d %v, want %d", in, n, ok, want)
		}
	}
}

// A message the channel refuses for good is marked failed on its ticket and is not
// sent again when the connection restarts; one never sent still is.
func TestConnectionPermanentRefusalIsNotResent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		var ob journalOutbox
		r := newLiveRig(t, d, func(c *ConnectionConfig) { c.Outbox = &ob })
		ob.r = r
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
		ctx := context.Background()
		num := "webchat:perm"
		if err := ch.sink.Inbound(ctx, inbound(num, "x1", "Oi")); err != nil {
			t.Fatal(err)
		}
		tid := r.onlyTicket(t).ID
		r.do(t, tid, engine.Accept{UserID: 1})
		ch.mu.Lock()
		ch.refuse = 1
		ch.mu.Unlock()
		r.do(t, tid, engine.SendMessage{MessageID: 770001, SenderID: 1, Body: "recusada"})
		eventually(t, "message failed", func() bool {
			m := r.ticketStates(t)[tid].Messages[770001]
			return m.Failed && m.Ack == engine.AckPending
		})
		ch.mu.Lock()
		tries := ch.tries
		ch.mu.Unlock()
		if tries != 1 {
			t.Fatalf("a permanent refusal was tried %d times", tries)
		}
		// After a restart a new reply is sent as usual, and the refused one is not;
		// after another restart nothing is left to send.
		ch = r.restartActor(t, conn)
		r.do(t, tid, engine.SendMessage{MessageID: 770002, SenderID: 1, Body: "depois"})
		eventually(t, "the later reply, acked", func() bool {
			return len(ch.sentTo(num)) >= 1 && ackOf(r, t, tid, 770002) == engine.AckSent
		})
		ch = r.restartActor(t, conn)
		time.Sleep(150 * time.Millisecond)
		for _, m := range ch.sentTo(num) {
			if m.MessageID == 770001 {
				t.Fatalf("the refused message was sent again after a restart")
			}
		}
		ch.mu.Lock()
		defer ch.mu.Unlock()
		if ch.tries != 0 {
			t.Fatalf("restart sent %d messages; everything was acked or failed", ch.tries)
		}
	})
}

// A permanent refusal whose provider text is not storable (invalid UTF-8, NUL,
// line breaks) still fails the message: the recorded reason is sanitised, so
// FailMessage is not refused and the message is not sent again after a restart.
func TestConnectionRefusalWithUnstorableTextFails(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		var ob journalOutbox
		r := newLiveRig(t, d, func(c *ConnectionConfig) { c.Outbox = &ob })
		ob.r = r
		var mu sync.Mutex
		refuse := true
		r.factory.mu.Lock()
		r.factory.onSend = func(_ context.Context, m engine.OutboundMessage) error {
			mu.Lock()
			defer mu.Unlock()
			if m.MessageID == 770011 && refuse {
				refuse = false
				return engine.Wrap(engine.ErrValidation, fmt.Errorf("provider says \xff\x00\r\nno"))
			}
			return nil
		}
		r.factory.mu.Unlock()
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Site", Channel: engine.ChannelSocket})
		ctx := context.Background()
		num := "webchat:badtext"
		if err := ch.sink.Inbound(ctx, inbound(num, "x1", "Oi")); err != nil {
			t.Fatal(err)
		}
		tid := r.onlyTicket(t).ID
		r.do(t, tid, engine.Accept{UserID: 1})
		r.do(t, tid, engine.SendMessage{MessageID: 770011, SenderID: 1, Body: "recusada"})
		eventually(t, "message failed", func() bool {
			m := r.ticketStates(t)[tid].Messages[770011]
			return m.Failed && m.Ack == engine.AckPending
		})
		reason, ok := failReasonOf(t, r, tid, 770011)
		if !ok || !utf8.ValidString(reason) || strings.ContainsAny(reason, "\x00\r\n") || !strings.Contains(reason, "provider says") {
			t.Fatalf("fail reason %q (recorded %v): want the provider text, storable and single-line", reason, ok)
		}
		ch = r.restartActor(t, conn)
		time.Sleep(150 * time.Millisecond)
		for _, m := range ch.sentTo(num) {
			if m.MessageID == 770011 {
				t.Fatalf("the refused message was sent again after a restart")
			}
		}
	})
}

// A quote the actor had to look up in the durable record is remembered: quoting the
// same message again does not ask the record again.
func TestConnectionQuoteLookupIsRemembered(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r, loc, conn, ch := newLocatorRig(t, d)
		ctx := context.Background()
		num := "webchat:qq"
		if err := ch.sink.Inbound(ctx, inbound(num, "q1", "Oi")); err != nil {
			t.Fatal(err)
		}
		tid := r.onlyTicket(t).ID
		ch = r.restartActor(t, conn)
		loc.mu.Lock()
		loc.byPID = nil // q1's own redelivery check is not a quote lookup
		loc.mu.Unlock()
		for _, pid := range []string{"q2", "q3"} {
			q := inbound(num, pid, "sobre isso")
			q.QuotedProviderID = "q1"
			if err := ch.sink.Inbound(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		quotes := map[string]engine.ID{}
		var q1 engine.ID
		for _, ev := range r.events(t, tid) {
			if m, ok := ev.(engine.TicketMessageReceived); ok {
				if m.ProviderID == "q1" {
					q1 = m.MessageID
				}
				quotes[m.ProviderID] = m.QuotedID
			}
		}
		if q1 == 0 || quotes["q2"] != q1 || quotes["q3"] != q1 {
			t.Fatalf("quotes %v, want both pointing at %d", quotes, q1)
		}
		loc.mu.Lock()
		defer loc.mu.Unlock()
		if n := loc.byPID["q1"]; n != 1 {
			t.Fatalf("the quoted message was looked up %d times, want 1", n)
		}
	})
}

// A message that may be late, routed to a ticket that refuses it (resolved), asks the
// locator once: the answer given before routing also serves the refusal.
func TestConnectionRefusedRouteAsksLocatorOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r, loc, conn, ch := newLocatorRig(t, d)
		ctx := context.Background()
		num := "webchat:once"
		if err := ch.sink.Inbound(ctx, inbound(num, "o1", "Oi")); err != nil {
			t.Fatal(err)
		}
		first := r.onlyTicket(t)
		r.do(t, first.ID, engine.Accept{UserID: 1})
		r.do(t, first.ID, engine.Resolve{})
		// After a restart the actor does not know when the ticket opened: the next
		// message may be late, so the locator is asked before routing.
		ch = r.restartActor(t, conn)
		if err := ch.sink.Inbound(ctx, inbound(num, "o2", "de novo")); err != nil {
			t.Fatal(err)
		}
		states := r.ticketStates(t)
		if len(states) != 2 {
			t.Fatalf("%d tickets, want the resolved one and its successor", len(states))
		}
		for id, st := range states {
			if id != first.ID && st.ProviderIDs["o2"] == 0 {
				t.Fatalf("the successor did not store the message: %v", st.ProviderIDs)
			}
		}
		loc.mu.Lock()
		defer loc.mu.Unlock()
		if n := loc.byPID["o2"]; n != 1 {
			t.Fatalf("the locator was asked %d times about the message, want 1", n)
		}
	})
}
