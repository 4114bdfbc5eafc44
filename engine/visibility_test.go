package engine_test

import (
	"testing"

	"atende/engine"
	"atende/engine/visibilitytest"
)

func TestSeesTicket(t *testing.T) {
	ana := engine.Principal{UserID: 2, CompanyID: 1, Profile: engine.ProfileUser, QueueIDs: []engine.ID{10}}
	plus := engine.Principal{UserID: 5, CompanyID: 1, Profile: engine.ProfileUserPlus, QueueIDs: []engine.ID{20}}
	sup := engine.Principal{UserID: 4, CompanyID: 1, Profile: engine.ProfileSuperv}
	tk := func(status string, queue, user engine.ID) engine.Ticket {
		return engine.Ticket{CompanyID: 1, Status: status, QueueID: queue, UserID: user}
	}
	tests := []struct {
		name string
		p    engine.Principal
		t    engine.Ticket
		want bool
	}{
		{"own queue pending", ana, tk(engine.StatusPending, 10, 0), true},
		{"other queue pending", ana, tk(engine.StatusPending, 20, 0), false},
		{"no queue pending", ana, tk(engine.StatusPending, 0, 0), true},
		{"assigned to me in another queue", ana, tk(engine.StatusOpen, 20, 2), true},
		{"open in my queue held by another", ana, tk(engine.StatusOpen, 10, 3), true},
		{"open in another queue held by another", ana, tk(engine.StatusOpen, 20, 3), false},
		{"closed anywhere", ana, tk(engine.StatusClosed, 30, 3), true},
		{"userplus other queue", plus, tk(engine.StatusOpen, 10, 3), false},
		{"superv sees all", sup, tk(engine.StatusOpen, 30, 3), true},
		{"another tenant, even closed", ana, engine.Ticket{CompanyID: 2, Status: engine.StatusClosed}, false},
		{"another tenant, superv", sup, engine.Ticket{CompanyID: 2, Status: engine.StatusOpen}, false},
		{"invalid principal", engine.Principal{UserID: 2, CompanyID: 1, Profile: "boss"}, tk(engine.StatusClosed, 0, 0), false},
		{"no user", engine.Principal{CompanyID: 1, Profile: engine.ProfileAdmin}, tk(engine.StatusPending, 0, 0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := engine.SeesTicket(tt.p, tt.t); got != tt.want {
				t.Errorf("engine.SeesTicket = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestListsTicketWithinSeesTicket: outside a search no list shows a ticket engine.SeesTicket
// hides, over every combination of the generated principals, queries and tickets.
func TestListsTicketWithinSeesTicket(t *testing.T) {
	n := 0
	for _, p := range visibilitytest.Principals(1) {
		for _, q := range visibilitytest.Queries() {
			for _, tk := range visibilitytest.Tickets() {
				if engine.ListsTicket(p, q, false, tk) && !engine.SeesTicket(p, tk) {
					t.Fatalf("%+v lists %+v to %+v, which engine.SeesTicket hides", q, tk, p)
				}
				if engine.ListsTicket(p, q, false, tk) {
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no list showed any ticket")
	}
}
