package engine_test

import (
	"slices"
	"testing"
	"time"

	"atende/engine"
)

// An accepted invitation makes a guest: the ticket built from the actor's state (the
// answer when the read model lags) carries it, and SeesTicket admits the guest
// outside the ticket's queue while a colleague of the guest's queue stays out.
func TestGuestsReachTheTicketFromTheState(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s := engine.TicketState{}
	for _, ev := range []engine.TicketEvent{
		engine.TicketOpened{TicketID: 1, CompanyID: 1, ContactID: 5, QueueID: 10, UserID: 2, Status: engine.StatusOpen, At: at},
		engine.TicketInvited{UserID: 3, ByUserID: 2, At: at},
		engine.TicketInviteAccepted{UserID: 3, ByUserID: 2, At: at},
	} {
		s = engine.EvolveTicket(s, ev)
	}
	tk := s.Ticket()
	if !slices.Equal(tk.Guests, []engine.ID{3}) {
		t.Fatalf("guests %v, want [3]", tk.Guests)
	}
	guest := engine.Principal{UserID: 3, CompanyID: 1, Profile: engine.ProfileUser, QueueIDs: []engine.ID{20}}
	other := engine.Principal{UserID: 4, CompanyID: 1, Profile: engine.ProfileUser, QueueIDs: []engine.ID{20}}
	if !engine.SeesTicket(guest, tk) || engine.SeesTicket(other, tk) {
		t.Fatal("SeesTicket does not follow the guest")
	}
	if !engine.ListsTicket(guest, engine.TicketQuery{Status: engine.StatusOpen}, false, tk) {
		t.Fatal("the guest's open tab does not list the ticket")
	}
}
