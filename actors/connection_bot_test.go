package actors

import (
	"context"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

// botRig is a live rig with a bot store, a queue store, the tenant's settings and a
// clock the test sets, and a web chat connection on two queues whose tenant has a
// two-level bot: 1 Vendas (queue), 2 Suporte (menu) → 1 Financeiro (queue, 08:00 to
// 18:00 with an absence message), 2 Horário (message).
type botRig struct {
	*liveRig
	conn               engine.Connection
	ch                 *recChannel
	vendas, financeiro engine.Queue
	now                *time.Time
}

func newBotRig(t *testing.T, d *db.DB, now time.Time) *botRig {
	t.Helper()
	ctx := context.Background()
	b := &botRig{now: &now}
	queues, bots := store.NewQueues(d, nil), store.NewBots(d, nil)
	settings := store.NewSettings(d, nil)
	b.liveRig = newLiveRig(t, d, func(c *ConnectionConfig) {
		c.Queues, c.Bots, c.Settings = queues, bots, settings
		c.Clock = engine.ClockFunc(func() time.Time { return *b.now })
	})
	if _, err := settings.Set(ctx, 1, engine.SettingTimeZone, "America/Sao_Paulo"); err != nil {
		t.Fatal(err)
	}
	var err error
	if b.vendas, err = queues.Create(ctx, 1, engine.QueueInput{Name: "Vendas", Color: "#ff0000", GreetingMessage: "Vendas aqui"}); err != nil {
		t.Fatal(err)
	}
	if b.financeiro, err = queues.Create(ctx, 1, engine.QueueInput{Name: "Financeiro", Color: "#00ff00",
		GreetingMessage: "Financeiro aqui", StartWork: "08:00", EndWork: "18:00", AbsenceMessage: "Estamos fechados"}); err != nil {
		t.Fatal(err)
	}
	mk := func(in engine.BotLevelInput) engine.BotLevel {
		t.Helper()
		l, err := bots.Create(ctx, 1, in)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	mk(engine.BotLevelInput{CommandBot: "1", DescriptionBot: "Vendas", CommandType: engine.BotQueue, QueueID: b.vendas.ID})
	sup := mk(engine.BotLevelInput{CommandBot: "2", DescriptionBot: "Suporte", CommandType: engine.BotMenu, ShowMessage: "Suporte:"})
	mk(engine.BotLevelInput{ParentID: sup.ID, CommandBot: "1", DescriptionBot: "Financeiro", CommandType: engine.BotQueue,
		QueueID: b.financeiro.ID})
	mk(engine.BotLevelInput{ParentID: sup.ID, CommandBot: "2", DescriptionBot: "Horário", CommandType: engine.BotMessage,
		ShowMessage: "Das 8h às 18h."})
	b.conn, b.ch = b.createConnection(t, engine.ConnectionInput{Name: "Central", Channel: engine.ChannelSocket,
		GreetingMessage: "Bem-vindo!", QueueIDs: []engine.ID{b.vendas.ID, b.financeiro.ID}}, "", "")
	return b
}

const (
	botRoot = "1 - Vendas\n2 - Suporte"
	botSub  = "Suporte:\n\n1 - Financeiro\n2 - Horário\n0 - Voltar"
)

func (b *botRig) say(t *testing.T, num, pid, body string) {
	t.Helper()
	if err := b.ch.sink.Inbound(context.Background(), inbound(num, pid, body)); err != nil {
		t.Fatal(err)
	}
}

// said waits for the customer's n-th automatic message and answers it.
func (b *botRig) said(t *testing.T, num string, n int) string {
	t.Helper()
	eventually(t, "bot message", func() bool { return len(b.ch.sentTo(num)) >= n })
	return b.ch.sentTo(num)[n-1].Body
}

// A customer walks the two-level menu — greeting, a wrong answer, down a level, a
// message option, back up, down again — and lands in the chosen queue with its
// greeting.
func TestBotTwoLevelMenu(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		noon := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC) // 12:00 in São Paulo
		b := newBotRig(t, d, noon)
		num := "webchat:walker"
		steps := []struct{ answer, want string }{
			{"Oi", "Bem-vindo!\n\n" + botRoot},
			{"7", engine.BotInvalidOption + "\n\n" + botRoot},
			{"2", botSub},
			{"2", "Das 8h às 18h.\n\n1 - Financeiro\n2 - Horário\n0 - Voltar"},
			{"0", botRoot},
			{"2.", botSub},
			{"1", "Financeiro aqui"},
		}
		for i, s := range steps {
			b.say(t, num, "w"+string(rune('a'+i)), s.answer)
			if got := b.said(t, num, i+1); got != s.want {
				t.Fatalf("answer %q: bot said %q, want %q", s.answer, got, s.want)
			}
		}
		st := b.onlyTicket(t)
		if st.QueueID != b.financeiro.ID || st.Status != engine.StatusPending || !st.BotDone {
			t.Fatalf("ticket %+v", st)
		}
		// Past the menu, numbers are just messages.
		b.say(t, num, "wz", "1")
		time.Sleep(100 * time.Millisecond)
		if n := len(b.ch.sentTo(num)); n != len(steps) {
			t.Fatalf("%d automatic messages", n)
		}
		// Every step is in the ticket's journal, once per customer message.
		steps2 := 0
		for _, ev := range b.events(t, st.ID) {
			if _, ok := ev.(engine.TicketBotStepped); ok {
				steps2++
			}
		}
		if steps2 != len(steps) {
			t.Fatalf("%d bot steps journaled, want %d", steps2, len(steps))
		}
	})
}

// Outside the queue's hours (in the tenant's zone) the absence message goes out on
// entering the queue, and once only for the burst of messages that follows.
func TestBotAbsenceOutsideHours(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		// 19:30 in São Paulo: Financeiro (08:00–18:00 there) is closed.
		evening := time.Date(2026, 11, 27, 22, 30, 0, 0, time.UTC)
		b := newBotRig(t, d, evening)
		num := "webchat:late"
		for i, a := range []string{"Oi", "2", "1"} {
			b.say(t, num, "l"+string(rune('a'+i)), a)
			b.said(t, num, i+1)
		}
		if got := b.said(t, num, 3); got != "Estamos fechados" {
			t.Fatalf("on entering a closed queue: %q", got)
		}
		b.say(t, num, "ld", "alô?")
		b.say(t, num, "le", "tem alguém?")
		time.Sleep(150 * time.Millisecond)
		if n := len(b.ch.sentTo(num)); n != 3 {
			t.Fatalf("%d automatic messages: the absence message repeated within the burst", n)
		}
		// The next evening, a new burst is told again.
		*b.now = evening.Add(24 * time.Hour)
		b.say(t, num, "lf", "e hoje?")
		if got := b.said(t, num, 4); got != "Estamos fechados" {
			t.Fatalf("next evening: %q", got)
		}
	})
}

// A node restart mid-menu: the menu level comes back from the ticket's journal, a
// message redelivered after the restart is not answered twice, and a message the
// ticket recorded whose answer was lost (a crash in between) is answered once when
// the channel delivers it again.
func TestBotRestartResumesMenu(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := newBotRig(t, d, time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC))
		num := "webchat:resume"
		b.say(t, num, "ra", "Oi")
		b.said(t, num, 1)
		b.say(t, num, "rb", "2")
		if got := b.said(t, num, 2); got != botSub {
			t.Fatalf("submenu %q", got)
		}
		tid := b.onlyTicket(t).ID

		b.restart(t)
		if _, err := (Connections{Node: b.node}).Start(context.Background(), b.conn.ID); err != nil {
			t.Fatal(err)
		}
		b.ch = b.factory.get(b.conn.ID)
		<-b.ch.started
		// The channel delivers "2" again: recorded already, answered already.
		b.say(t, num, "rb", "2")
		// "9" reaches the ticket, but the node dies before the bot answers it.
		if _, err := b.tickets.Do(context.Background(), 1, tid, nil, b.conn.ID,
			engine.ReceiveMessage{MessageID: 990001, ProviderID: "rc", Body: "9"}); err != nil {
			t.Fatal(err)
		}
		b.say(t, num, "rc", "9") // the redelivery is answered at the submenu level
		got := b.said(t, num, 1)
		if !strings.HasPrefix(got, engine.BotInvalidOption) || !strings.HasSuffix(got, "2 - Horário\n0 - Voltar") {
			t.Fatalf("after the restart: %q", got)
		}
		b.say(t, num, "rc", "9") // and only once
		b.say(t, num, "rd", "1")
		if got := b.said(t, num, 2); got != "Financeiro aqui" {
			t.Fatalf("choice after the restart: %q", got)
		}
		time.Sleep(100 * time.Millisecond)
		if n := len(b.ch.sentTo(num)); n != 2 {
			t.Fatalf("%d messages after the restart, want 2", n)
		}
		if st := b.onlyTicket(t); st.QueueID != b.financeiro.ID {
			t.Fatalf("ticket %+v", st)
		}
	})
}

// A connection with one queue puts tickets straight into it — unless the tenant has a
// reception menu, which then routes them.
func TestBotSingleQueueConnection(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := newBotRig(t, d, time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC))
		_, ch := b.createConnection(t, engine.ConnectionInput{Name: "Loja", Channel: engine.ChannelSocket,
			GreetingMessage: "Loja!", QueueIDs: []engine.ID{b.vendas.ID}}, "", "")
		num := "webchat:single"
		if err := ch.sink.Inbound(context.Background(), inbound(num, "sa", "Oi")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "menu", func() bool { return len(ch.sentTo(num)) == 1 })
		if got := ch.sentTo(num)[0].Body; got != "Loja!\n\n"+botRoot {
			t.Fatalf("greeting %q", got)
		}
		if st := b.onlyTicket(t); st.QueueID != 0 {
			t.Fatalf("ticket started in queue %d", st.QueueID)
		}
	})
}
