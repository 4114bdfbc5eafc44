package engine

import (
	"strings"
	"testing"
)

func TestRevokeMessage(t *testing.T) {
	base := func(t *testing.T, status string) TicketState {
		// fixture: 100 sent by user 7 (no provider id), 101 inbound "p101".
		return fixture(t, status)
	}
	t.Run("customer revokes own message, in every live status", func(t *testing.T) {
		for _, status := range []string{StatusOpen, StatusPending, StatusClosed} {
			s := base(t, status)
			evs, err := DecideTicket(s, RevokeMessage{ProviderID: "p101"}, t0)
			if err != nil || len(evs) != 1 {
				t.Fatalf("%s: %v %v", status, evs, err)
			}
			ev, ok := evs[0].(TicketMessageDeleted)
			if !ok || ev.MessageID != 101 || ev.ByUserID != 0 {
				t.Fatalf("%s: event %+v", status, evs[0])
			}
			s = FoldTicket(s, evs)
			if !s.Messages[101].Deleted {
				t.Fatalf("%s: message not deleted in state", status)
			}
			// A redelivered revoke changes nothing.
			again, err := DecideTicket(s, RevokeMessage{ProviderID: "p101"}, t0)
			if err != nil || len(again) != 0 {
				t.Fatalf("%s: second revoke %v %v", status, again, err)
			}
		}
	})
	t.Run("nothing to match changes nothing", func(t *testing.T) {
		s := base(t, StatusOpen)
		for _, c := range []RevokeMessage{
			{ProviderID: "unknown"},
			{ProviderID: "p101", FromMe: true}, // our device cannot revoke the customer's message
		} {
			evs, err := DecideTicket(s, c, t0)
			if err != nil || len(evs) != 0 {
				t.Fatalf("%+v: %v %v", c, evs, err)
			}
		}
	})
	t.Run("customer cannot revoke our message", func(t *testing.T) {
		s, _ := build(t, baseOpen, SendMessage{MessageID: 100, SenderID: 7, Body: "Bom dia"},
			AckMessage{MessageID: 100, Ack: AckSent, ProviderID: "out-100"})
		if evs, err := DecideTicket(s, RevokeMessage{ProviderID: "out-100"}, t0); err != nil || len(evs) != 0 {
			t.Fatalf("customer revoke of ours: %v %v", evs, err)
		}
		// Our own device may (deleted for everyone on the phone).
		evs, err := DecideTicket(s, RevokeMessage{ProviderID: "out-100", FromMe: true}, t0)
		if err != nil || len(evs) != 1 || evs[0].(TicketMessageDeleted).MessageID != 100 {
			t.Fatalf("own revoke: %v %v", evs, err)
		}
	})
	t.Run("hostile input", func(t *testing.T) {
		s := base(t, StatusOpen)
		for _, pid := range []string{"", "a\nb", strings.Repeat("x", 257)} {
			_, err := DecideTicket(s, RevokeMessage{ProviderID: pid}, t0)
			if codeOf(t, err) != ErrValidation || fieldsOf(err)["providerId"] == "" {
				t.Fatalf("provider id %q: %v", pid, err)
			}
		}
	})
	t.Run("deleted and never-opened tickets", func(t *testing.T) {
		for _, status := range []string{"deleted", "none"} {
			_, err := DecideTicket(base(t, status), RevokeMessage{ProviderID: "p101"}, t0)
			if codeOf(t, err) != ErrNoTicketFound {
				t.Fatalf("%s: %v", status, err)
			}
		}
	})
	t.Run("replay gives the same state", func(t *testing.T) {
		s, evs := build(t, baseOpen, ReceiveMessage{MessageID: 101, ProviderID: "p101", Body: "Oi"},
			RevokeMessage{ProviderID: "p101"}, RevokeMessage{ProviderID: "p101"})
		if got := eventTypes(evs); strings.Join(got, ",") != "ticket.opened,ticket.message_received,ticket.message_deleted" {
			t.Fatalf("events %v", got)
		}
		var replayed TicketState
		for _, ev := range evs {
			typ, data, err := EncodeTicketEvent(ev)
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeTicketEvent(typ, data)
			if err != nil {
				t.Fatal(err)
			}
			replayed = EvolveTicket(replayed, back)
		}
		if !replayed.Messages[101].Deleted || replayed.Version != s.Version {
			t.Fatalf("replayed %+v, live %+v", replayed, s)
		}
	})
}

func TestAckRecordsProviderID(t *testing.T) {
	s, _ := build(t, baseOpen, SendMessage{MessageID: 100, SenderID: 7, Body: "a"},
		SendMessage{MessageID: 102, SenderID: 7, Body: "b"},
		AckMessage{MessageID: 100, Ack: AckSent, ProviderID: "out-100"})
	if s.ProviderIDs["out-100"] != 100 || s.Messages[100].Ack != AckSent {
		t.Fatalf("state %+v", s)
	}
	// A provider id names one message: another message's ack does not take it.
	evs, err := DecideTicket(s, AckMessage{MessageID: 102, Ack: AckSent, ProviderID: "out-100"}, t0)
	if err != nil || len(evs) != 1 || evs[0].(TicketMessageAcked).ProviderID != "" {
		t.Fatalf("second ack %+v %v", evs, err)
	}
	// An inbound redelivery with that id is not stored as a customer message.
	if evs, err := DecideTicket(s, ReceiveMessage{MessageID: 103, ProviderID: "out-100", Body: "x"}, t0); err != nil || len(evs) != 0 {
		t.Fatalf("receive with a sent provider id %v %v", evs, err)
	}
	if _, err := DecideTicket(s, AckMessage{MessageID: 102, Ack: AckSent, ProviderID: "a\x00\nb"}, t0); codeOf(t, err) != ErrValidation {
		t.Fatalf("bad provider id: %v", err)
	}
}

func TestFailMessage(t *testing.T) {
	s := fixture(t, StatusOpen) // 100 ours at ack 0, 101 inbound
	evs, err := DecideTicket(s, FailMessage{MessageID: 100, Reason: strings.Repeat("é", 600)}, t0)
	if err != nil || len(evs) != 1 {
		t.Fatalf("fail: %v %v", evs, err)
	}
	ev := evs[0].(TicketMessageFailed)
	if ev.MessageID != 100 || len([]rune(ev.Reason)) != maxFailReasonRunes {
		t.Fatalf("event %+v", ev)
	}
	s = FoldTicket(s, evs)
	if !s.Messages[100].Failed || s.Messages[100].Ack != AckPending {
		t.Fatalf("meta %+v", s.Messages[100])
	}
	if evs, err := DecideTicket(s, FailMessage{MessageID: 100}, t0); err != nil || len(evs) != 0 {
		t.Fatalf("second fail %v %v", evs, err)
	}
	if _, err := DecideTicket(s, FailMessage{MessageID: 101}, t0); codeOf(t, err) != ErrInvalidTransition {
		t.Fatalf("fail of an inbound message: %v", err)
	}
	if _, err := DecideTicket(s, FailMessage{MessageID: 999}, t0); codeOf(t, err) != ErrNoMessageFound {
		t.Fatalf("fail of an unknown message: %v", err)
	}
	if _, err := DecideTicket(s, FailMessage{MessageID: 100, Reason: "a\x00b"}, t0); codeOf(t, err) != ErrValidation {
		t.Fatalf("NUL in reason: %v", err)
	}
	// A message the channel already accepted does not fail afterwards.
	acked, _ := build(t, baseOpen, SendMessage{MessageID: 100, SenderID: 7, Body: "a"}, AckMessage{MessageID: 100, Ack: AckSent})
	if evs, err := DecideTicket(acked, FailMessage{MessageID: 100}, t0); err != nil || len(evs) != 0 {
		t.Fatalf("fail after ack %v %v", evs, err)
	}
}
