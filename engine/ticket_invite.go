package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Ticket invitations (spec section 3, Invitation; PUT /ticketinvite/{id}).
//
// An attendant who may reach a ticket invites a colleague of the same tenant to it.
// The invitation is a fact of the ticket, journaled on its stream like every other
// change, so it survives restarts, moves with the ticket's actor between nodes and
// shows in the ticket's history:
//
//   - Invite records a pending invitation (TicketInvited): the invitee is told over
//     the socket (the "invitation" event, to the invitee's sockets only). Inviting
//     again while one is pending records it again (the invitee is told again).
//   - AcceptInvite turns the invitee into a guest of the ticket
//     (TicketInviteAccepted). A guest reaches the ticket as its holder's queue-mates
//     do, whatever their own queues (AuthorizeTicket), and may reply and whisper on
//     it while it is open — not resolve, return or transfer it: that stays the
//     holder's. Accepting twice records nothing the second time.
//   - DeclineInvite drops the pending invitation (TicketInviteDeclined); the inviter
//     is told.
//
// Guests stay for the ticket's life (a transfer or a resolve keeps them): the
// conversation they were brought into is still theirs to read and answer when it is
// reopened.

// MaxInviteNameRunes bounds the names an invitation carries (the user name limit of
// spec section 5 is 50; longer stored names are clipped, not refused).
const MaxInviteNameRunes = 50

// Invite invites UserID to the ticket on behalf of ByUserID (the caller). ToName and
// FromName are the two users' names as the invitation shows them (spec section 3:
// uTo, uFrom), fixed when it is sent.
type Invite struct {
	UserID   ID
	ByUserID ID
	ToName   string `json:",omitempty"`
	FromName string `json:",omitempty"`
}

// AcceptInvite accepts UserID's pending invitation: UserID becomes a guest. Name is
// the invitee's name, for the notice the inviter gets.
type AcceptInvite struct {
	UserID ID
	Name   string `json:",omitempty"`
}

// DeclineInvite declines UserID's pending invitation (Name as in AcceptInvite).
type DeclineInvite struct {
	UserID ID
	Name   string `json:",omitempty"`
}

func (c AcceptInvite) invitee() ID  { return c.UserID }
func (c DeclineInvite) invitee() ID { return c.UserID }

func (Invite) CommandName() string        { return "ticket.invite" }
func (AcceptInvite) CommandName() string  { return "ticket.accept_invite" }
func (DeclineInvite) CommandName() string { return "ticket.decline_invite" }

func (Invite) isTicketCommand()        {}
func (AcceptInvite) isTicketCommand()  {}
func (DeclineInvite) isTicketCommand() {}

// Invitation event types, as stored in the journal.
const (
	EvTicketInvited        = "ticket.invited"
	EvTicketInviteAccepted = "ticket.invite_accepted"
	EvTicketInviteDeclined = "ticket.invite_declined"
)

// TicketInvited: ByUserID invited UserID to the ticket.
type TicketInvited struct {
	UserID   ID        `json:"userId"`
	ByUserID ID        `json:"byUserId"`
	ToName   string    `json:"toName,omitempty"`
	FromName string    `json:"fromName,omitempty"`
	At       time.Time `json:"at"`
}

// TicketInviteAccepted: UserID (named Name) accepted the invitation of ByUserID and
// is a guest.
type TicketInviteAccepted struct {
	UserID   ID        `json:"userId"`
	ByUserID ID        `json:"byUserId"`
	Name     string    `json:"name,omitempty"`
	At       time.Time `json:"at"`
}

// TicketInviteDeclined: UserID (named Name) declined the invitation of ByUserID.
type TicketInviteDeclined struct {
	UserID   ID        `json:"userId"`
	ByUserID ID        `json:"byUserId"`
	Name     string    `json:"name,omitempty"`
	At       time.Time `json:"at"`
}

func (TicketInvited) Type() string        { return EvTicketInvited }
func (TicketInviteAccepted) Type() string { return EvTicketInviteAccepted }
func (TicketInviteDeclined) Type() string { return EvTicketInviteDeclined }

func (e TicketInvited) OccurredAt() time.Time        { return e.At }
func (e TicketInviteAccepted) OccurredAt() time.Time { return e.At }
func (e TicketInviteDeclined) OccurredAt() time.Time { return e.At }

func (TicketInvited) isTicketEvent()        {}
func (TicketInviteAccepted) isTicketEvent() {}
func (TicketInviteDeclined) isTicketEvent() {}

// Invitation is an invitation as the invitee and the inviter are told of it: the
// payload of the socket event "invitation" (transport/realtime) and an item of GET
// /ticketinvite. The spec's fields (section 3): to (the user told), uTo and uFrom (the
// invitee's and the inviter's names), contact (the customer's name), dateTime,
// profilePic (the customer's picture) and ticket (the ticket's id). Atende adds
// action, the two user ids and the ticket's status.
type Invitation struct {
	Action       string    `json:"action"`
	To           ID        `json:"to"`
	UTo          string    `json:"uTo"`
	UFrom        string    `json:"uFrom"`
	UserID       ID        `json:"userId"`   // the invitee
	UserFrom     ID        `json:"userFrom"` // the inviter
	Contact      string    `json:"contact"`
	DateTime     time.Time `json:"dateTime"`
	ProfilePic   string    `json:"profilePic"`
	Ticket       ID        `json:"ticket"`
	TicketStatus string    `json:"ticketStatus"`
}

// Actions of an Invitation.
const (
	InvitationCreate  = "create"  // sent: told to the invitee
	InvitationAccept  = "accept"  // accepted: told to the inviter
	InvitationDecline = "decline" // declined: told to the inviter
)

// PendingInvitesLimit bounds GET /ticketinvite: the newest pending invitations.
const PendingInvitesLimit = 100

// InviteQueries reads the invitations of the read model.
type InviteQueries interface {
	// PendingInvites lists user's pending invitations in company, newest first, at
	// most PendingInvitesLimit, as Invitations with action create: those answered,
	// and those of a closed or deleted ticket (which takes no answer), are left out.
	PendingInvites(ctx context.Context, company, user ID) ([]Invitation, error)
}

// InvitationOf is the Invitation of ticket t (its contact as it now is) with action,
// told to user to: invitee is the invitee's id and name uTo, from and uFrom the
// inviter's (uFrom is empty on answers).
func InvitationOf(t *Ticket, action string, invitee ID, uTo string, from ID, uFrom string, at time.Time) Invitation {
	in := Invitation{Action: action, UserID: invitee, UTo: uTo, UserFrom: from, UFrom: uFrom, DateTime: at,
		Ticket: t.ID, TicketStatus: t.Status, To: from}
	if action == InvitationCreate {
		in.To = invitee
	}
	if t.Contact != nil {
		in.Contact, in.ProfilePic = t.Contact.Name, t.Contact.ProfilePicURL
		if in.ProfilePic == "" {
			in.ProfilePic = t.Contact.DisplayPic
		}
	}
	return in
}

// IsGuest reports whether user accepted an invitation to the ticket.
func (s TicketState) IsGuest(user ID) bool {
	_, ok := slices.BinarySearch(s.Guests, user)
	return ok && user != 0
}

// InvitedBy is who invited user, when user has a pending invitation.
func (s TicketState) InvitedBy(user ID) (ID, bool) {
	by, ok := s.Invites[user]
	return by, ok
}

// decideInvite: both ids required and different; the ticket must not be closed; the
// invitee must not hold the ticket nor be a guest already (ErrValidation on userId).
func decideInvite(s TicketState, c Invite, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	f.id("userId", c.UserID, true)
	f.id("userFrom", c.ByUserID, true)
	if c.UserID != 0 && (c.UserID == c.ByUserID || c.UserID == s.UserID || s.IsGuest(c.UserID)) {
		f.add("userId", MsgInvalidValue)
	}
	if !StorableText(c.ToName) || !StorableText(c.FromName) {
		f.add("userId", MsgInvalidValue)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if s.Status == StatusClosed {
		return nil, invalidTransition(s, c)
	}
	return one(TicketInvited{UserID: c.UserID, ByUserID: c.ByUserID,
		ToName: clipName(c.ToName), FromName: clipName(c.FromName), At: at})
}

// decideAnswerInvite judges AcceptInvite (accept true) and DeclineInvite. A guest
// accepting again changes nothing; answering without a pending invitation is
// ErrNoPermission (there is nothing of the ticket the user was given); a closed
// ticket takes no answer (ErrInvalidTransition).
func decideAnswerInvite(s TicketState, cmd TicketCommand, user ID, name string, accept bool, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	f.id("userId", user, true)
	if !StorableText(name) {
		f.add("name", MsgInvalidValue)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if accept && s.IsGuest(user) {
		return nil, nil
	}
	by, ok := s.InvitedBy(user)
	if !ok {
		return nil, Wrap(ErrNoPermission, fmt.Errorf("%s: user %d has no invitation to ticket %d", cmd.CommandName(), user, s.ID))
	}
	if s.Status == StatusClosed {
		return nil, invalidTransition(s, cmd)
	}
	if accept {
		return one(TicketInviteAccepted{UserID: user, ByUserID: by, Name: clipName(name), At: at})
	}
	return one(TicketInviteDeclined{UserID: user, ByUserID: by, Name: clipName(name), At: at})
}

func clipName(n string) string {
	n = strings.TrimSpace(n)
	if r := []rune(n); len(r) > MaxInviteNameRunes {
		n = string(r[:MaxInviteNameRunes])
	}
	return n
}

// evolveInvite folds the invitation events; it reports whether ev was one.
func (s *TicketState) evolveInvite(ev TicketEvent) bool {
	switch e := ev.(type) {
	case TicketInvited:
		if s.Invites == nil {
			s.Invites = make(map[ID]ID)
		}
		s.Invites[e.UserID] = e.ByUserID
	case TicketInviteAccepted:
		delete(s.Invites, e.UserID)
		if i, found := slices.BinarySearch(s.Guests, e.UserID); !found {
			s.Guests = slices.Insert(s.Guests, i, e.UserID)
		}
	case TicketInviteDeclined:
		delete(s.Invites, e.UserID)
	default:
		return false
	}
	if len(s.Invites) == 0 {
		s.Invites = nil // as a snapshot reads it back
	}
	return true
}
