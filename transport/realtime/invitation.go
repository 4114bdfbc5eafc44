package realtime

import (
	"atende/engine"
	"atende/transport/socket"
)

// EventInvitation is the socket event of ticket invitations (spec sections 3 and 7).
const EventInvitation = "invitation"

// Actions of the invitation event beyond create.
const (
	ActionAccept  = engine.InvitationAccept
	ActionDecline = engine.InvitationDecline
)

// invitationEvent maps the invitation events of ticket t to an engine.Invitation: an
// invitation goes to the invitee's sockets only, an answer to the inviter's only
// (socket.UserRoom, no other room: nobody else learns of it). It reports false for
// any other event.
func invitationEvent(t *engine.Ticket, ev engine.TicketEvent) (*socket.Event, bool, error) {
	var in engine.Invitation
	switch e := ev.(type) {
	case engine.TicketInvited:
		in = engine.InvitationOf(t, engine.InvitationCreate, e.UserID, e.ToName, e.ByUserID, e.FromName, e.At)
	case engine.TicketInviteAccepted:
		in = engine.InvitationOf(t, engine.InvitationAccept, e.UserID, e.Name, e.ByUserID, "", e.At)
	case engine.TicketInviteDeclined:
		in = engine.InvitationOf(t, engine.InvitationDecline, e.UserID, e.Name, e.ByUserID, "", e.At)
	default:
		return nil, false, nil
	}
	body, err := payload(in)
	if err != nil {
		return nil, true, err
	}
	return &socket.Event{Rooms: []socket.Room{socket.UserRoom(in.To)}, Name: EventInvitation, Payload: body}, true, nil
}
