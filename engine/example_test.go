package engine_test

import (
	"fmt"
	"time"

	"atende/engine"
)

// A ticket actor's loop: authorise, decide, (append to the journal), evolve.
func ExampleDecideTicket() {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var s engine.TicketState
	apply := func(cmd engine.TicketCommand) {
		evs, err := engine.DecideTicket(s, cmd, now)
		if err != nil {
			fmt.Println(cmd.CommandName(), "->", engine.CodeOf(err))
			return
		}
		for _, ev := range evs {
			s = engine.EvolveTicket(s, ev)
			fmt.Println(cmd.CommandName(), "->", ev.Type())
		}
	}
	apply(engine.OpenTicket{TicketID: 1, UUID: "u-1", CompanyID: 1, ContactID: 2, ConnectionID: 3,
		Channel: engine.ChannelWhatsApp, QueueID: 4, Status: engine.StatusPending})
	apply(engine.ReceiveMessage{MessageID: 10, ProviderID: "wa-1", Body: "Oi!"})
	apply(engine.ReceiveMessage{MessageID: 11, ProviderID: "wa-1", Body: "Oi!"}) // redelivery: nothing
	apply(engine.Resolve{})
	apply(engine.Accept{UserID: 7})
	apply(engine.Resolve{})
	apply(engine.ReceiveMessage{MessageID: 12, Body: "Mais uma coisa"})
	fmt.Println(s.Status, s.UserID, s.UnreadMessages, s.Version)
	// Output:
	// ticket.open -> ticket.opened
	// ticket.receive_message -> ticket.message_received
	// ticket.resolve -> ERR_INVALID_TRANSITION
	// ticket.accept -> ticket.accepted
	// ticket.resolve -> ticket.resolved
	// ticket.receive_message -> ERR_INVALID_TRANSITION
	// closed 7 0 4
}

func ExampleAuthorizeTicket() {
	s := engine.TicketState{ID: 1, CompanyID: 1, Status: engine.StatusOpen, UserID: 8, QueueID: 4}
	ana := engine.Principal{UserID: 7, CompanyID: 1, Profile: engine.ProfileUser, QueueIDs: []engine.ID{4}}
	boss := engine.Principal{UserID: 9, CompanyID: 1, Profile: engine.ProfileSuperv}
	outsider := engine.Principal{UserID: 9, CompanyID: 2, Profile: engine.ProfileSuper}
	fmt.Println(engine.CodeOf(engine.AuthorizeTicket(ana, s, engine.Resolve{})))
	fmt.Println(engine.AuthorizeTicket(boss, s, engine.Resolve{}))
	fmt.Println(engine.CodeOf(engine.AuthorizeTicket(outsider, s, engine.Resolve{})))
	// Output:
	// ERR_NO_PERMISSION
	// <nil>
	// ERR_NO_TICKET_FOUND
}

func ExampleCan() {
	fmt.Println(engine.Can(engine.ProfileAdmin, engine.ActDeleteTicket))
	fmt.Println(engine.Can(engine.ProfileAdmin, engine.ActViewSuperMenu))
	fmt.Println(engine.Can("dashboard", engine.ActViewScheduleMenu))
	// Output:
	// true
	// false
	// false
}

func ExampleValidateContact() {
	out, err := engine.ValidateContact(engine.ContactInput{Name: " Ana ", Number: "+55 (65) 99999-0000"})
	fmt.Printf("%q %q %v\n", out.Name, out.Number, err)
	_, err = engine.ValidateContact(engine.ContactInput{Name: "A", Email: "ana@"})
	fmt.Println(err)
	// Output:
	// "Ana" "5565999990000" <nil>
	// ERR_VALIDATION email="Invalid email" name="Too Short!"
}

func ExampleSatisfactionScore() {
	score, icon := engine.SatisfactionScore(engine.AppraisalData{TotalSum: 25, TotalCount: 10})
	fmt.Printf("%.2f %d\n", score, icon)
	// Output: 8.33 2
}

func ExampleTicketAgeColor() {
	for _, m := range []int{1, 3, 5, 6} {
		fmt.Print(engine.TicketAgeColor(time.Duration(m)*time.Minute), " ")
	}
	fmt.Println()
	// Output: green yellow orange red
}
