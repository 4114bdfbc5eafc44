package engine

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// botTree: first menu 1 Vendas (queue 10), 2 Suporte (menu) → 1 Financeiro (queue
// 11), 2 Horário (message); 3 Falar com Ana (user 7).
func botTree() []BotLevel {
	return []BotLevel{
		{ID: 1, CommandBot: "1", DescriptionBot: "Vendas", CommandType: BotQueue, QueueID: 10},
		{ID: 2, CommandBot: "2", DescriptionBot: "Suporte", CommandType: BotMenu, ShowMessage: "Suporte:"},
		{ID: 3, ParentID: 2, CommandBot: "1", DescriptionBot: "Financeiro", CommandType: BotQueue, QueueID: 11,
			ShowMessage: "Vou te passar ao financeiro."},
		{ID: 4, ParentID: 2, CommandBot: "2", DescriptionBot: "Horário", CommandType: BotMessage,
			ShowMessage: "Das 8h às 18h."},
		{ID: 5, CommandBot: "3", DescriptionBot: "Falar com Ana", CommandType: BotUser, UserID: 7},
	}
}

var botQueues = map[ID]Queue{
	10: {ID: 10, Name: "Vendas", GreetingMessage: "Bem-vindo a Vendas"},
	11: {ID: 11, Name: "Financeiro", GreetingMessage: "Financeiro aqui", StartWork: "08:00", EndWork: "18:00",
		AbsenceMessage: "Estamos fechados"},
}

// botWalk feeds the customer's answers to a pending ticket, deciding and recording
// each step as the connection and the ticket do, and answers the bot's texts.
func botWalk(t *testing.T, now time.Time, answers ...string) (TicketState, []string) {
	t.Helper()
	s := TicketState{}
	apply := func(cmd TicketCommand) {
		evs, err := DecideTicket(s, cmd, now)
		if err != nil {
			t.Fatalf("%T: %v", cmd, err)
		}
		s = FoldTicket(s, evs)
	}
	apply(OpenTicket{TicketID: 1, UUID: "u", CompanyID: 1, ContactID: 2, ConnectionID: 3, Channel: "whatsapp",
		Status: StatusPending})
	var said []string
	for i, a := range answers {
		pid := "p" + string(rune('a'+i))
		apply(ReceiveMessage{MessageID: ID(100 + 2*i), ProviderID: pid, Body: a})
		step, ok := DecideBot(BotInput{Ticket: s, ProviderID: pid, Body: a, First: i == 0, Levels: botTree(),
			Greeting: "Olá!", QueueOf: func(id ID) (Queue, bool) { q, ok := botQueues[id]; return q, ok },
			Now: now, Zone: time.UTC})
		if !ok {
			said = append(said, "")
			continue
		}
		step.MessageID = ID(101 + 2*i)
		apply(step)
		said = append(said, step.Body)
		// The same step again (a redelivery after a crash) records nothing.
		if evs, err := DecideTicket(s, step, now); err != nil || len(evs) != 0 {
			t.Fatalf("repeated step: %v %v", evs, err)
		}
		if again, ok := DecideBot(BotInput{Ticket: s, ProviderID: pid, Body: a, Levels: botTree(), Now: now}); ok {
			t.Fatalf("answered %q twice: %+v", pid, again)
		}
	}
	return s, said
}

func TestBotTwoLevelMenuLandsInQueue(t *testing.T) {
	noon := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s, said := botWalk(t, noon, "oi", "2", "1")
	if s.QueueID != 11 || !s.BotDone || s.Status != StatusPending {
		t.Fatalf("state %+v", s)
	}
	if said[0] != "Olá!\n\n1 - Vendas\n2 - Suporte\n3 - Falar com Ana" {
		t.Errorf("greeting %q", said[0])
	}
	if said[1] != "Suporte:\n\n1 - Financeiro\n2 - Horário\n0 - Voltar" {
		t.Errorf("submenu %q", said[1])
	}
	if said[2] != "Vou te passar ao financeiro.\n\nFinanceiro aqui" {
		t.Errorf("queue entry %q", said[2])
	}
}

func TestBotInvalidAnswerRepeatsMenuAndBackGoesUp(t *testing.T) {
	noon := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s, said := botWalk(t, noon, "oi", "2", "9", "2", "0", "3")
	if !strings.HasPrefix(said[2], BotInvalidOption) || !strings.HasSuffix(said[2], "2 - Horário\n0 - Voltar") {
		t.Errorf("invalid %q", said[2])
	}
	if said[3] != "Das 8h às 18h.\n\n1 - Financeiro\n2 - Horário\n0 - Voltar" {
		t.Errorf("message option %q", said[3])
	}
	if said[4] != "1 - Vendas\n2 - Suporte\n3 - Falar com Ana" {
		t.Errorf("back %q", said[4])
	}
	if s.UserID != 7 || s.Status != StatusOpen || !s.BotDone {
		t.Fatalf("user option: %+v", s)
	}
}

func TestBotAbsenceOncePerBurst(t *testing.T) {
	night := time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC)
	s, said := botWalk(t, night, "oi", "2", "1", "alô?", "tem alguém?")
	if said[2] != "Vou te passar ao financeiro.\n\nEstamos fechados" {
		t.Errorf("absence %q", said[2])
	}
	if said[3] != "" || said[4] != "" {
		t.Errorf("absence repeated within the burst: %q", said[3:])
	}
	if s.QueueID != 11 || s.AbsenceAt.IsZero() {
		t.Fatalf("state %+v", s)
	}
	// The next evening the customer is told again.
	later := night.Add(24 * time.Hour)
	s = FoldTicket(s, []TicketEvent{TicketMessageReceived{MessageID: 900, ProviderID: "late", Body: "oi", At: later}})
	step, ok := DecideBot(BotInput{Ticket: s, ProviderID: "late", Body: "oi", Levels: botTree(),
		QueueOf: func(id ID) (Queue, bool) { q, ok := botQueues[id]; return q, ok }, Now: later, Zone: time.UTC})
	if !ok || step.Body != "Estamos fechados" || !step.Absent {
		t.Fatalf("next evening %+v %v", step, ok)
	}
}

func TestBotStepStaleIsNoOp(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s, _ := botWalk(t, now, "oi")
	s = FoldTicket(s, []TicketEvent{TicketMessageReceived{MessageID: 200, ProviderID: "x1", Body: "2", At: now},
		TicketMessageReceived{MessageID: 201, ProviderID: "x2", Body: "1", At: now}})
	// x1 is no longer the latest message: its step is dropped, x2 is answered.
	if evs, err := DecideTicket(s, BotStep{ReplyTo: "x1", MessageID: 300, Body: "menu", Level: 2}, now); err != nil || evs != nil {
		t.Fatalf("stale step: %v %v", evs, err)
	}
	// A step decided on another level is dropped too.
	if evs, err := DecideTicket(s, BotStep{ReplyTo: "x2", MessageID: 300, Body: "menu", FromLevel: 2}, now); err != nil || evs != nil {
		t.Fatalf("other level: %v %v", evs, err)
	}
	if _, err := DecideTicket(s, BotStep{ReplyTo: "", Body: "x", MessageID: 300}, now); CodeOf(err) != ErrValidation {
		t.Fatalf("no replyTo: %v", err)
	}
	if _, err := DecideTicket(s, BotStep{ReplyTo: "x2", Body: "x"}, now); CodeOf(err) != ErrValidation {
		t.Fatalf("body without message id: %v", err)
	}
}

func TestBotQueueMenuWithoutLevels(t *testing.T) {
	s := TicketState{ID: 1, Status: StatusPending, LastInbound: "a"}
	menu := QueueMenuLevels([]Queue{{ID: 10, Name: "Vendas"}, {ID: 11, Name: "Suporte"}})
	step, ok := DecideBot(BotInput{Ticket: s, ProviderID: "a", Body: "oi", First: true, QueueMenu: menu, Greeting: "Oi"})
	if !ok || step.Body != "Oi\n\n1 - Vendas\n2 - Suporte" {
		t.Fatalf("%+v", step)
	}
	step, ok = DecideBot(BotInput{Ticket: s, ProviderID: "a", Body: "2", QueueMenu: menu})
	if !ok || step.QueueID != 11 || !step.Done {
		t.Fatalf("%+v", step)
	}
	// One queue: no menu; the greeting alone answers the first message.
	step, ok = DecideBot(BotInput{Ticket: s, ProviderID: "a", Body: "oi", First: true, QueueMenu: menu[:1], Greeting: "Oi"})
	if !ok || step.Body != "Oi" || !step.Done {
		t.Fatalf("%+v", step)
	}
	// Groups get the greeting, never the menu.
	s.IsGroup = true
	if step, ok := DecideBot(BotInput{Ticket: s, ProviderID: "a", Body: "oi", First: true, QueueMenu: menu, Greeting: "Oi"}); !ok || step.Body != "Oi" {
		t.Fatalf("group greeting %+v", step)
	}
	if _, ok := DecideBot(BotInput{Ticket: s, ProviderID: "a", Body: "2", QueueMenu: menu}); ok {
		t.Fatal("group answered")
	}
}

func TestWithinHours(t *testing.T) {
	sp, _ := time.LoadLocation("America/Sao_Paulo")
	at := func(h, m int) time.Time { return time.Date(2026, 11, 27, h, m, 0, 0, sp) }
	day := Queue{StartWork: "08:00", EndWork: "18:00"}
	night := Queue{StartWork: "22:00", EndWork: "06:00"}
	for _, c := range []struct {
		q    Queue
		t    time.Time
		want bool
	}{
		{day, at(8, 0), true}, {day, at(17, 59), true}, {day, at(18, 0), false}, {day, at(7, 59), false},
		{night, at(23, 0), true}, {night, at(5, 59), true}, {night, at(6, 0), false}, {night, at(12, 0), false},
		{Queue{}, at(3, 0), true}, {Queue{StartWork: "09:00", EndWork: "09:00"}, at(3, 0), true},
	} {
		// The instant is given in São Paulo; the check reads it there whatever its zone.
		if got := WithinHours(c.q, c.t.UTC(), sp); got != c.want {
			t.Errorf("%v at %v: %v", c.q.StartWork+"-"+c.q.EndWork, c.t, got)
		}
	}
}

func TestValidateBotLevel(t *testing.T) {
	for _, c := range []struct {
		name   string
		in     BotLevelInput
		fields map[string]string
	}{
		{"empty", BotLevelInput{}, map[string]string{"commandBot": MsgRequired, "descriptionBot": MsgRequired,
			"commandType": MsgRequired}},
		{"queue without queue", BotLevelInput{CommandBot: "1", DescriptionBot: "x", CommandType: BotQueue},
			map[string]string{"queueId": MsgRequired}},
		{"user without user", BotLevelInput{CommandBot: "1", DescriptionBot: "x", CommandType: BotUser},
			map[string]string{"userId": MsgRequired}},
		{"message without text", BotLevelInput{CommandBot: "1", DescriptionBot: "x", CommandType: BotMessage},
			map[string]string{"showMessage": MsgRequired}},
		{"bad number", BotLevelInput{CommandBot: "-1", DescriptionBot: "x", CommandType: BotMenu},
			map[string]string{"commandBot": MsgInvalidNumber}},
		{"zero", BotLevelInput{CommandBot: "0", DescriptionBot: "x", CommandType: BotMenu},
			map[string]string{"commandBot": MsgInvalidNumber}},
		{"too long", BotLevelInput{CommandBot: "1", DescriptionBot: strings.Repeat("a", 101), CommandType: BotMenu},
			map[string]string{"descriptionBot": MsgTooLong}},
		{"control", BotLevelInput{CommandBot: "1", DescriptionBot: "a\x00", CommandType: "drop"},
			map[string]string{"descriptionBot": MsgInvalidValue, "commandType": MsgInvalidValue}},
		{"negative ids", BotLevelInput{CommandBot: "1", DescriptionBot: "x", CommandType: BotUser, UserID: -1, ParentID: -2},
			map[string]string{"userId": MsgInvalidValue, "parentId": MsgInvalidValue}},
	} {
		_, err := ValidateBotLevel(c.in)
		e, ok := err.(*Error)
		if !ok || e.Code != ErrValidation || len(e.Fields) != len(c.fields) {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for f, m := range c.fields {
			if e.Fields[f] != m {
				t.Errorf("%s: %s = %q, want %q", c.name, f, e.Fields[f], m)
			}
		}
	}
	out, err := ValidateBotLevel(BotLevelInput{CommandBot: " 007 ", DescriptionBot: " Vendas ", CommandType: BotMenu,
		QueueID: 3, UserID: 4, ShowMessage: " Escolha: "})
	if err != nil || out.CommandBot != "7" || out.DescriptionBot != "Vendas" || out.QueueID != 0 || out.UserID != 0 ||
		out.ShowMessage != "Escolha:" {
		t.Fatalf("%+v %v", out, err)
	}
}

func FuzzParseMenuAnswer(f *testing.F) {
	for _, s := range []string{"1", " 2. ", "3)", "0", "", "-1", "+1", "1000", "１", "1.)", "12a", "\x00", "999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseMenuAnswer(s)
		if !ok {
			if n != 0 {
				t.Fatalf("%q: refused with %d", s, n)
			}
			return
		}
		if n < 0 || n > 999 {
			t.Fatalf("%q: %d out of range", s, n)
		}
		// An accepted answer holds its number's digits and only trimmable noise.
		core := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".)"))
		if core == "" || strings.TrimLeft(core, "0123456789") != "" {
			t.Fatalf("%q accepted as %d", s, n)
		}
	})
}

// FuzzValidateBotLevel: whatever the form holds, an accepted level is clean — a
// canonical option number, a one-line description within bounds, a known type with
// exactly the ids it uses — and a refused one names only fields of the form.
func FuzzValidateBotLevel(f *testing.F) {
	f.Add("1", "Vendas", "queue", "", int64(0), int64(3), int64(0))
	f.Add(" 007 ", " Suporte ", "menu", "Escolha:", int64(2), int64(0), int64(9))
	f.Add("0", "a\x00", "user", "x", int64(-1), int64(-5), int64(7))
	f.Add("99999", "", "shell", "\u2028", int64(0), int64(0), int64(0))
	fields := map[string]bool{"parentId": true, "commandBot": true, "descriptionBot": true, "commandType": true,
		"showMessage": true, "userId": true, "queueId": true}
	f.Fuzz(func(t *testing.T, cmd, desc, typ, msg string, parent, queue, user int64) {
		out, err := ValidateBotLevel(BotLevelInput{ParentID: ID(parent), CommandBot: cmd, DescriptionBot: desc,
			CommandType: typ, ShowMessage: msg, QueueID: ID(queue), UserID: ID(user)})
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Code != ErrValidation || len(e.Fields) == 0 {
				t.Fatalf("refusal %v", err)
			}
			for k := range e.Fields {
				if !fields[k] {
					t.Fatalf("unknown field %q", k)
				}
			}
			return
		}
		n, ok := ParseMenuAnswer(out.CommandBot)
		if !ok || n < 1 || strconv.Itoa(n) != out.CommandBot {
			t.Fatalf("commandBot %q", out.CommandBot)
		}
		if out.DescriptionBot == "" || !singleLine(out.DescriptionBot) || runeLen(out.DescriptionBot) > BotDescriptionMax {
			t.Fatalf("descriptionBot %q", out.DescriptionBot)
		}
		switch out.CommandType {
		case BotQueue:
			ok = out.QueueID > 0 && out.UserID == 0
		case BotUser:
			ok = out.UserID > 0 && out.QueueID >= 0
		case BotMessage:
			ok = out.ShowMessage != "" && out.QueueID == 0 && out.UserID == 0
		case BotMenu:
			ok = out.QueueID == 0 && out.UserID == 0
		default:
			ok = false
		}
		if !ok || out.ParentID < 0 {
			t.Fatalf("accepted %+v", out)
		}
	})
}
