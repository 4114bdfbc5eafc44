package realtime

import (
	"time"

	"atende/engine"
	"atende/transport/socket"
)

// EventInvitation is the socket event of ticket invitations (spec sections 3 and 7).
const EventInvitation = "invitation"

// Actions of the invitation event beyond create.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
)

// invitation is the payload of an "invitation" event. The spec's fields: to (the
// user the event is for), uTo and uFrom (the invitee's and the inviter's names),
// contact (the customer's name), dateTime, profilePic (the customer's picture) and
// ticket (the ticket's id). Atende adds action, the two user ids, and the ticket's
// status.
type invitation struct {
	Action       string    `json:"action"`
	To           engine.ID `json:"to"`
	UTo          string    `json:"uTo"`
	UFrom        string    `json:"uFrom"`
	UserID       engine.ID `json:"userId"`   // the invitee
	UserFrom     engine.ID `json:"userFrom"` // the inviter
	Contact      string    `json:"contact"`
	DateTime     time.Time `json:"dateTime"`
	ProfilePic   string    `json:"profilePic"`
	Ticket       engine.ID `json:"ticket"`
	TicketStatus string    `json:"ticketStatus"`
}

// invitationEvent maps the invitation events of ticket t: an invitation goes to the
// invitee's sockets only, an answer to the inviter's only (socket.UserRoom, no other
// room: nobody else learns of it). It reports false for any other event.
func invitationEvent(t *engine.Ticket, ev engine.TicketEvent) (*socket.Event, bool, error) {
	in := invitation{Ticket: t.ID, TicketStatus: t.Status}
	if t.Contact != nil {
		in.Contact, in.ProfilePic = t.Contact.Name, t.Contact.ProfilePicURL
		if in.ProfilePic == "" {
			in.ProfilePic = t.Contact.DisplayPic
		}
	}
	switch e := ev.(type) {
	case engine.TicketInvited:
		in.Action, in.To, in.UserID, in.UserFrom = ActionCreate, e.UserID, e.UserID, e.ByUserID
		in.UTo, in.UFrom, in.DateTime = e.ToName, e.FromName, e.At
	case engine.TicketInviteAccepted:
		in.Action, in.To, in.UserID, in.UserFrom = ActionAccept, e.ByUserID, e.UserID, e.ByUserID
		in.UTo, in.DateTime = e.Name, e.At
	case engine.TicketInviteDeclined:
		in.Action, in.To, in.UserID, in.UserFrom = ActionDecline, e.ByUserID, e.UserID, e.ByUserID
		in.UTo, in.DateTime = e.Name, e.At
	default:
		return nil, false, nil
	}
	body, err := payload(in)
	if err != nil {
		return nil, true, err
	}
	return &socket.Event{Rooms: []socket.Room{socket.UserRoom(in.To)}, Name: EventInvitation, Payload: body}, true, nil
}
