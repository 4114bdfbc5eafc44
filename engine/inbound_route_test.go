package engine

import (
	"encoding/json"
	"testing"
	"time"
)

func TestRouteInbound(t *testing.T) {
	opened := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	before, after := opened.Add(-time.Minute), opened.Add(time.Minute)
	asked := Stored{Asked: true}
	foundOn := func(tid ID) Stored { return Stored{Asked: true, Found: true, Ticket: tid} }
	tests := []struct {
		name string
		r    InboundRoute
		want InboundDecision
	}{
		{"no ticket, record not asked", InboundRoute{Locator: true, At: after},
			InboundDecision{Effect: RouteAskStored}},
		{"no ticket, new message", InboundRoute{Locator: true, At: after, Stored: asked},
			InboundDecision{Effect: RouteOpen}},
		{"no ticket, stored on an earlier ticket", InboundRoute{Locator: true, At: after, Stored: foundOn(5)},
			InboundDecision{Effect: RouteAcknowledge, Ticket: 5}},
		{"no ticket, no locator", InboundRoute{At: after},
			InboundDecision{Effect: RouteOpen}},
		{"current ticket, sent after it opened", InboundRoute{Locator: true, Ticket: 7, SinceTicket: 7, Since: opened, At: after},
			InboundDecision{Effect: RouteDeliver, Ticket: 7}},
		{"current ticket, sent before it opened", InboundRoute{Locator: true, Ticket: 7, SinceTicket: 7, Since: opened, At: before},
			InboundDecision{Effect: RouteAskStored}},
		{"current ticket, opening time unknown", InboundRoute{Locator: true, Ticket: 7, At: after},
			InboundDecision{Effect: RouteAskStored}},
		{"opening time of another ticket", InboundRoute{Locator: true, Ticket: 7, SinceTicket: 6, Since: opened, At: after},
			InboundDecision{Effect: RouteAskStored}},
		{"message time unknown", InboundRoute{Locator: true, Ticket: 7},
			InboundDecision{Effect: RouteDeliver, Ticket: 7}},
		{"opened for this very message", InboundRoute{Locator: true, Ticket: 7, Opened: 7, At: before},
			InboundDecision{Effect: RouteDeliver, Ticket: 7}},
		{"late, stored on an earlier ticket", InboundRoute{Locator: true, Ticket: 7, At: before, Stored: foundOn(3)},
			InboundDecision{Effect: RouteAcknowledge, Ticket: 3}},
		{"late, stored on the current ticket: it de-duplicates", InboundRoute{Locator: true, Ticket: 7, At: before, Stored: foundOn(7)},
			InboundDecision{Effect: RouteDeliver, Ticket: 7}},
		{"late, not stored", InboundRoute{Locator: true, Ticket: 7, At: before, Stored: asked},
			InboundDecision{Effect: RouteDeliver, Ticket: 7}},
		{"late, no locator", InboundRoute{Ticket: 7, At: before},
			InboundDecision{Effect: RouteDeliver, Ticket: 7}},
		{"refused by the current ticket, record not asked", InboundRoute{Locator: true, Ticket: 7, Refused: 7, Refusals: 1, At: after, SinceTicket: 7, Since: opened},
			InboundDecision{Effect: RouteAskStored}},
		{"refused by the current ticket: its successor opens", InboundRoute{Locator: true, Ticket: 7, Refused: 7, Refusals: 1, Stored: asked},
			InboundDecision{Effect: RouteOpen, Prev: 7}},
		{"refused, no locator: its successor opens", InboundRoute{Ticket: 7, Refused: 7, Refusals: 1},
			InboundDecision{Effect: RouteOpen, Prev: 7}},
		{"refused, stored on that very ticket", InboundRoute{Locator: true, Ticket: 7, Refused: 7, Refusals: 1, Stored: foundOn(7)},
			InboundDecision{Effect: RouteAcknowledge, Ticket: 7}},
		{"refused, stored elsewhere", InboundRoute{Locator: true, Ticket: 7, Refused: 7, Refusals: 2, Stored: foundOn(4)},
			InboundDecision{Effect: RouteAcknowledge, Ticket: 4}},
		{"refused by a ticket no longer current", InboundRoute{Locator: true, Ticket: 9, Opened: 9, Refused: 7, Refusals: 1, Stored: asked},
			InboundDecision{Effect: RouteDeliver, Ticket: 9}},
		{"refused by a former ticket, the current one not known to be newer", InboundRoute{Locator: true, Ticket: 9, Refused: 7, Refusals: 1, At: after},
			InboundDecision{Effect: RouteAskStored}},
		{"second refusal still opens", InboundRoute{Locator: true, Ticket: 9, Refused: 9, Refusals: MaxInboundRefusals, Stored: asked},
			InboundDecision{Effect: RouteOpen, Prev: 9}},
		{"one refusal too many", InboundRoute{Locator: true, Ticket: 9, Refused: 9, Refusals: MaxInboundRefusals + 1, Stored: asked},
			InboundDecision{Effect: RouteGiveUp, Ticket: 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RouteInbound(tt.r); got != tt.want {
				t.Errorf("RouteInbound(%+v) = %+v, want %+v", tt.r, got, tt.want)
			}
		})
	}
}

// TestRouteInboundEndsEachPath drives RouteInbound the way a connection does, over
// every combination of what it may know and what the record may answer, and checks
// that each message ends in at most two questions to the record (ask, then decide),
// never opens beside a current ticket it was not refused by, and never delivers to a
// ticket other than the current one.
func TestRouteInboundEndsEachPath(t *testing.T) {
	opened := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	times := []time.Time{{}, opened.Add(-time.Second), opened.Add(time.Second)}
	answers := []Stored{{Asked: true}, {Asked: true, Found: true, Ticket: 7}, {Asked: true, Found: true, Ticket: 3}}
	for _, locator := range []bool{false, true} {
		for _, ticket := range []ID{0, 7} {
			for _, at := range times {
				for _, answer := range answers {
					for _, refused := range []ID{0, 7, 5} {
						r := InboundRoute{Locator: locator, Ticket: ticket, At: at, SinceTicket: 7, Since: opened, Refused: refused}
						if refused != 0 {
							r.Refusals = 1
						}
						d := RouteInbound(r)
						if d.Effect == RouteAskStored {
							r.Stored = answer
							d = RouteInbound(r)
						}
						switch d.Effect {
						case RouteAskStored:
							t.Errorf("%+v: asked the record twice", r)
						case RouteOpen:
							if ticket != 0 && refused != ticket {
								t.Errorf("%+v: opens beside current ticket %d", r, ticket)
							}
							if d.Prev != ticket {
								t.Errorf("%+v: opens replacing %d, the guard names %d", r, d.Prev, ticket)
							}
						case RouteDeliver:
							if d.Ticket != ticket || ticket == 0 {
								t.Errorf("%+v: delivers to %d, current %d", r, d.Ticket, ticket)
							}
							if refused == ticket {
								t.Errorf("%+v: delivers again to the ticket that refused it", r)
							}
						case RouteAcknowledge:
							if !r.Stored.Found {
								t.Errorf("%+v: acknowledges a message the record does not hold", r)
							}
						case RouteGiveUp:
							t.Errorf("%+v: gives up after one refusal", r)
						default:
							t.Errorf("%+v: effect %d", r, d.Effect)
						}
					}
				}
			}
		}
	}
}

func TestOpenTicketWithItsFirstMessage(t *testing.T) {
	first := &ReceiveMessage{MessageID: 900, ProviderID: "wamid.1", Body: "Olá"}
	open := baseOpen
	open.Status, open.UserID, open.First = StatusPending, 0, first
	evs, err := DecideTicket(TicketState{}, open, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := eventTypes(evs); len(got) != 2 || got[0] != "ticket.opened" || got[1] != "ticket.message_received" {
		t.Fatalf("events %v, want the opening then the message", got)
	}
	s := FoldTicket(TicketState{}, evs)
	if s.Status != StatusPending || s.Version != 2 || s.UnreadMessages != 1 || s.LastMessage != "Olá" {
		t.Errorf("state %+v after an opening with its first message", s)
	}
	// The same message again is the ticket's to de-duplicate.
	again, err := DecideTicket(s, ReceiveMessage{MessageID: 901, ProviderID: "wamid.1", Body: "Olá"}, t0)
	if err != nil || len(again) != 0 {
		t.Errorf("redelivery after the opening: %v, %v", again, err)
	}

	// An invalid first message refuses the opening: nothing is written.
	bad := open
	bad.First = &ReceiveMessage{ProviderID: "wamid.2", Body: "x"} // no message id
	if evs, err := DecideTicket(TicketState{}, bad, t0); codeOf(t, err) != ErrValidation || len(evs) != 0 {
		t.Errorf("invalid first message: %v, %v", evs, err)
	}
	if err := bad.First.Validate(); codeOf(t, err) != ErrValidation {
		t.Errorf("Validate: %v", err)
	}
	if err := first.Validate(); err != nil {
		t.Errorf("Validate of a valid message: %v", err)
	}

	// With the bot's greeting too: the opening, the message and the greeting in one
	// decision.
	greeted := open
	greeted.Greet = &BotStep{ReplyTo: "wamid.1", MessageID: 950, Body: "Olá! Como podemos ajudar?"}
	evs, err = DecideTicket(TicketState{}, greeted, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := eventTypes(evs); len(got) < 3 || got[0] != "ticket.opened" || got[1] != "ticket.message_received" ||
		got[2] != "ticket.message_sent" {
		t.Fatalf("events %v, want the opening, the message, then the greeting", got)
	}
	if s := FoldTicket(TicketState{}, evs); s.BotReplyTo != "wamid.1" || !s.HasMessage(950) || s.LastMessage != "Olá! Como podemos ajudar?" {
		t.Errorf("state %+v after a greeted opening", s)
	}
	// The greeting needs the message it answers, and a valid step.
	noFirst := greeted
	noFirst.First = nil
	if evs, err := DecideTicket(TicketState{}, noFirst, t0); codeOf(t, err) != ErrValidation || len(evs) != 0 {
		t.Errorf("greeting without a first message: %v, %v", evs, err)
	}
	badStep := greeted
	badStep.Greet = &BotStep{MessageID: 950, Body: "x"} // answers no message
	if evs, err := DecideTicket(TicketState{}, badStep, t0); codeOf(t, err) != ErrValidation || len(evs) != 0 {
		t.Errorf("greeting without replyTo: %v, %v", evs, err)
	}
	if err := AuthorizeTicket(Principal{UserID: 1, CompanyID: open.CompanyID, Profile: ProfileAdmin}, TicketState{},
		OpenTicket{TicketID: open.TicketID, CompanyID: open.CompanyID, Greet: greeted.Greet}); codeOf(t, err) != ErrNoPermission {
		t.Errorf("a person opening with a bot step: %v", err)
	}

	// It travels as JSON between nodes.
	body, err := json.Marshal(open)
	if err != nil {
		t.Fatal(err)
	}
	var back OpenTicket
	if err := json.Unmarshal(body, &back); err != nil || back.First == nil || *back.First != *first {
		t.Errorf("round trip: %+v, %v", back, err)
	}

	// Only the channel side records a customer's message.
	p := Principal{UserID: 1, CompanyID: open.CompanyID, Profile: ProfileAdmin}
	if err := AuthorizeTicket(p, TicketState{}, open); codeOf(t, err) != ErrNoPermission {
		t.Errorf("a person opening with a customer's message: %v", err)
	}
	open.First = nil
	if err := AuthorizeTicket(p, TicketState{}, open); err != nil {
		t.Errorf("a person opening: %v", err)
	}
}
