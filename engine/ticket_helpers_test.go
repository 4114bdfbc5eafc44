package engine

import (
	"errors"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// baseOpen is the OpenTicket every fixture starts from: open, held by user 7, queue 40.
var baseOpen = OpenTicket{
	TicketID: 10, UUID: "uuid-10", CompanyID: 1, ContactID: 20, ConnectionID: 30,
	Channel: ChannelWhatsApp, QueueID: 40, UserID: 7, Status: StatusOpen, Protocol: "20261122-000010",
}

// build applies cmds from the zero state, one minute apart, failing the test on any
// error. It returns the state and every event.
func build(t *testing.T, cmds ...TicketCommand) (TicketState, []TicketEvent) {
	t.Helper()
	var (
		s   TicketState
		all []TicketEvent
	)
	for i, c := range cmds {
		evs, err := DecideTicket(s, c, t0.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatalf("fixture step %d %s: %v", i, c.CommandName(), err)
		}
		s = FoldTicket(s, evs)
		all = append(all, evs...)
	}
	return s, all
}

// Fixture states by status. Each has message 100 (sent by user 7) and 101 (inbound).
func fixture(t *testing.T, status string) TicketState {
	t.Helper()
	if status == "none" {
		return TicketState{}
	}
	cmds := []TicketCommand{
		baseOpen,
		SendMessage{MessageID: 100, SenderID: 7, Body: "Bom dia"},
		ReceiveMessage{MessageID: 101, ProviderID: "p101", Body: "Oi"},
	}
	switch status {
	case StatusOpen:
	case StatusPending:
		cmds = append(cmds, Return{})
	case StatusClosed:
		cmds = append(cmds, Resolve{})
	case "deleted":
		cmds = append(cmds, Delete{})
	default:
		t.Fatalf("no fixture %q", status)
	}
	s, _ := build(t, cmds...)
	return s
}

// codeOf is the catalogue code of err, "" for nil; it fails the test for a non-*Error.
func codeOf(t *testing.T, err error) Code {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *engine.Error", err, err)
	}
	return e.Code
}

func fieldsOf(err error) map[string]string {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}

func eventTypes(evs []TicketEvent) []string {
	out := []string{}
	for _, ev := range evs {
		out = append(out, ev.Type())
	}
	return out
}
