package engine

import "testing"

func TestAuthorizeTicket(t *testing.T) {
	openAs := func(user, queue ID, status string) OpenTicket {
		c := baseOpen
		c.UserID, c.QueueID, c.Status = user, queue, status
		return c
	}
	st := func(cmds ...TicketCommand) TicketState {
		s, _ := build(t, cmds...)
		return s
	}
	otherTenant := baseOpen
	otherTenant.CompanyID = 2
	var (
		own            = fixture(t, StatusOpen) // open, held by 7, queue 40
		openOther      = st(openAs(8, 40, StatusOpen))
		pendingQ40     = fixture(t, StatusPending)
		pendingQ41     = st(openAs(0, 41, StatusPending))
		pendingNoQueue = st(openAs(0, 0, StatusPending))
		closedQ40      = fixture(t, StatusClosed)
		closedQ41Other = st(openAs(8, 41, StatusOpen), Resolve{})
		ownInQ41       = st(openAs(8, 41, StatusOpen), Transfer{UserID: 7})
		foreign        = st(otherTenant)
		// openOther with user 7 (ana) invited by its holder 8, and with ana a guest
		invitedOther = st(openAs(8, 41, StatusOpen), Invite{UserID: 7, ByUserID: 8})
		guestOther   = st(openAs(8, 41, StatusOpen), Invite{UserID: 7, ByUserID: 8}, AcceptInvite{UserID: 7})
		deleted      = fixture(t, "deleted")
		never        = TicketState{}
	)
	var (
		ana      = Principal{UserID: 7, CompanyID: 1, Profile: ProfileUser, QueueIDs: []ID{40}}
		bia      = Principal{UserID: 11, CompanyID: 1, Profile: ProfileUserPlus, QueueIDs: []ID{40}}
		sup      = Principal{UserID: 9, CompanyID: 1, Profile: ProfileSuperv}
		mgr      = Principal{UserID: 12, CompanyID: 1, Profile: ProfileManager}
		adm      = Principal{UserID: 10, CompanyID: 1, Profile: ProfileAdmin}
		root     = Principal{UserID: 13, CompanyID: 1, Profile: ProfileSuper}
		stranger = Principal{UserID: 9, CompanyID: 2, Profile: ProfileSuper}
		boss     = Principal{UserID: 14, CompanyID: 1, Profile: "boss"}
	)
	const (
		okay = Code("")
		np   = ErrNoPermission
		nf   = ErrNoTicketFound
	)
	tests := []struct {
		name string
		p    Principal
		s    TicketState
		cmd  TicketCommand
		want Code
	}{
		// user: own tickets, own queues, no-queue tickets
		{"user resolves own", ana, own, Resolve{}, okay},
		{"user revokes by provider id", ana, own, RevokeMessage{ProviderID: "p101"}, np},
		{"super revokes by provider id", root, own, RevokeMessage{ProviderID: "p101"}, np},
		{"admin marks a message failed", adm, own, FailMessage{MessageID: 100}, np},
		{"user returns own", ana, own, Return{}, okay},
		{"user resolves a colleague's open ticket", ana, openOther, Resolve{}, np},
		{"userplus resolves a colleague's open ticket", bia, own, Resolve{}, np},
		{"user accepts in own queue", ana, pendingQ40, Accept{UserID: 7}, okay},
		{"userplus accepts in own queue", bia, pendingQ40, Accept{UserID: 11}, okay},
		{"user accepts for someone else", ana, pendingQ40, Accept{UserID: 8}, np},
		{"user accepts outside own queues", ana, pendingQ41, Accept{UserID: 7}, np},
		{"user accepts a ticket with no queue", ana, pendingNoQueue, Accept{UserID: 7}, okay},
		{"user acts on a ticket assigned to them in another queue", ana, ownInQ41, Resolve{}, okay},
		{"user transfers own to another queue", ana, own, Transfer{QueueID: 41}, okay},
		{"user transfers own to another connection", ana, own, Transfer{ConnectionID: 31}, okay},
		{"user transfers a pending ticket of own queue", ana, pendingQ40, Transfer{UserID: 8}, okay},
		{"user transfers a colleague's ticket", ana, openOther, Transfer{QueueID: 41}, np},
		{"user replies on own", ana, own, SendMessage{MessageID: 1, SenderID: 7, Body: "x"}, okay},
		{"user replies as someone else", ana, own, SendMessage{MessageID: 1, SenderID: 8, Body: "x"}, np},
		{"user replies on a colleague's ticket", ana, openOther, SendMessage{MessageID: 1, SenderID: 7, Body: "x"}, np},
		{"user whispers on own", ana, own, AddWhisper{MessageID: 1, SenderID: 7, Body: "x"}, okay},
		{"user whispers on a colleague's ticket", ana, openOther, AddWhisper{MessageID: 1, SenderID: 7, Body: "x"}, np},
		{"user whispers as someone else", ana, own, AddWhisper{MessageID: 1, SenderID: 9, Body: "x"}, np},
		{"user deletes a ticket", ana, own, Delete{}, np},
		{"user reopens in own queue", ana, closedQ40, Reopen{UserID: 7}, okay},
		{"user reopens for someone else", ana, closedQ40, Reopen{UserID: 8}, np},
		{"user reopens outside own queues", ana, closedQ41Other, Reopen{UserID: 7}, np},
		{"user marks own read", ana, own, MarkRead{}, okay},
		{"user marks outside own queues read", ana, pendingQ41, MarkRead{}, np},
		{"user tags in own queue", ana, pendingQ40, SetTags{TagIDs: []ID{1}}, okay},
		{"user tags a colleague's ticket of own queue", ana, openOther, SetTags{TagIDs: []ID{1}}, okay},
		{"user deletes own message", ana, own, DeleteMessage{MessageID: 100, ByUserID: 7}, okay},
		{"user deletes as someone else", ana, own, DeleteMessage{MessageID: 100, ByUserID: 8}, np},
		{"user forges an inbound message", ana, own, ReceiveMessage{MessageID: 1, Body: "x"}, np},
		{"user forges an automatic message", ana, own, SendAutomaticMessage{MessageID: 1, Body: "x"}, np},
		{"user forges an ack", ana, own, AckMessage{MessageID: 100, Ack: AckRead}, np},
		{"user opens in own queue for self", ana, never, openAs(7, 40, StatusOpen), okay},
		{"user opens pending with no queue", ana, never, openAs(0, 0, StatusPending), okay},
		{"user opens in another queue", ana, never, openAs(7, 41, StatusOpen), np},
		{"user opens for someone else", ana, never, openAs(8, 40, StatusOpen), np},
		// invitations
		{"user invites on own", ana, own, Invite{UserID: 11, ByUserID: 7}, okay},
		{"user invites as someone else", ana, own, Invite{UserID: 11, ByUserID: 8}, np},
		{"user invites on a pending ticket of own queue", ana, pendingQ40, Invite{UserID: 11, ByUserID: 7}, okay},
		{"user invites outside own queues", ana, pendingQ41, Invite{UserID: 11, ByUserID: 7}, np},
		{"user invites on a colleague's open ticket", ana, openOther, Invite{UserID: 11, ByUserID: 7}, np},
		{"superv invites on a colleague's ticket", sup, openOther, Invite{UserID: 11, ByUserID: 9}, okay},
		{"invitee accepts outside own queues", ana, invitedOther, AcceptInvite{UserID: 7}, okay},
		{"invitee declines outside own queues", ana, invitedOther, DeclineInvite{UserID: 7}, okay},
		{"user accepts someone else's invitation", bia, invitedOther, AcceptInvite{UserID: 7}, np},
		{"user declines someone else's invitation", bia, invitedOther, DeclineInvite{UserID: 7}, np},
		{"invitee on another tenant's ticket", stranger, invitedOther, AcceptInvite{UserID: 9}, nf},
		{"invitee may not reply before accepting", ana, invitedOther, SendMessage{MessageID: 1, SenderID: 7, Body: "x"}, np},
		{"guest replies outside own queues", ana, guestOther, SendMessage{MessageID: 1, SenderID: 7, Body: "x"}, okay},
		{"guest whispers", ana, guestOther, AddWhisper{MessageID: 1, SenderID: 7, Body: "x"}, okay},
		{"guest marks read", ana, guestOther, MarkRead{}, okay},
		{"guest invites a colleague", ana, guestOther, Invite{UserID: 11, ByUserID: 7}, okay},
		{"guest may not resolve", ana, guestOther, Resolve{}, np},
		{"guest may not return", ana, guestOther, Return{}, np},
		{"guest may not transfer", ana, guestOther, Transfer{QueueID: 40}, np},
		{"guest may not delete", ana, guestOther, Delete{}, np},
		{"guest still replies only as self", ana, guestOther, SendMessage{MessageID: 1, SenderID: 8, Body: "x"}, np},
		{"another user is no guest", bia, guestOther, SendMessage{MessageID: 1, SenderID: 11, Body: "x"}, np},
		// supervision reaches everything in the tenant, but not deletion
		{"superv resolves a colleague's ticket", sup, openOther, Resolve{}, okay},
		{"superv accepts in any queue", sup, pendingQ41, Accept{UserID: 9}, okay},
		{"superv still accepts only for self", sup, pendingQ41, Accept{UserID: 8}, np},
		{"superv transfers a colleague's ticket", sup, openOther, Transfer{UserID: 7, ConnectionID: 31}, okay},
		{"superv replies on a colleague's ticket", sup, openOther, SendMessage{MessageID: 1, SenderID: 9, Body: "x"}, okay},
		{"superv whispers on a colleague's ticket", sup, openOther, AddWhisper{MessageID: 1, SenderID: 9, Body: "x"}, okay},
		{"superv opens for another user in any queue", sup, never, openAs(8, 41, StatusOpen), okay},
		{"superv deletes a ticket", sup, own, Delete{}, np},
		{"manager deletes a ticket", mgr, own, Delete{}, np},
		{"superv forges an inbound message", sup, own, ReceiveMessage{MessageID: 1, Body: "x"}, np},
		{"admin deletes a ticket", adm, own, Delete{}, okay},
		{"super deletes a ticket", root, closedQ41Other, Delete{}, okay},
		// tenancy and existence are not leaked
		{"other tenant's ticket", stranger, own, Resolve{}, nf},
		{"other tenant's ticket, even to delete", stranger, own, Delete{}, nf},
		{"user on another tenant's ticket", ana, foreign, MarkRead{}, nf},
		{"open in another tenant", ana, never, otherTenant, nf},
		{"open over another tenant's ticket", stranger, own, OpenTicket{TicketID: 10, CompanyID: 2}, nf},
		{"open over an existing ticket", adm, own, baseOpen, okay}, // decide refuses it
		{"deleted ticket", adm, deleted, Delete{}, nf},
		{"deleted ticket, reopen", ana, deleted, Reopen{UserID: 7}, nf},
		{"open over a deleted ticket", adm, deleted, baseOpen, nf},
		{"never opened", adm, never, Resolve{}, nf},
		// an unknown profile may do nothing, and learns nothing
		{"unknown profile", boss, own, MarkRead{}, np},
		{"unknown profile elsewhere", boss, foreign, MarkRead{}, np},
		{"no user", Principal{CompanyID: 1, Profile: ProfileAdmin}, own, MarkRead{}, np},
		{"no tenant", Principal{UserID: 7, Profile: ProfileAdmin}, never, Resolve{}, np},
		// malformed calls
		{"nil command", adm, own, nil, ErrInternal},
		{"pointer command", adm, own, &Delete{}, ErrInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := AuthorizeTicket(tt.p, tt.s, tt.cmd)
			if got := codeOf(t, err); got != tt.want {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestAuthorizeThenDecide: an authorised user command still meets decide's rules.
func TestAuthorizeThenDecide(t *testing.T) {
	ana := Principal{UserID: 7, CompanyID: 1, Profile: ProfileUser, QueueIDs: []ID{40}}
	s := fixture(t, StatusPending)
	cmd := SendMessage{MessageID: 1, SenderID: 7, Body: "x"}
	if err := AuthorizeTicket(ana, s, cmd); err != nil {
		t.Fatalf("authorize: %v", err)
	}
	if _, err := DecideTicket(s, cmd, t0); codeOf(t, err) != ErrInvalidTransition {
		t.Errorf("decide: %v, want ERR_INVALID_TRANSITION (composer is for open tickets)", err)
	}
}
