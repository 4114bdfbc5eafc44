package httpapi

import (
	"net/http"

	"atende/engine"
)

// Ticket invitations (engine/ticket_invite.go has the rules):
//
//	GET  /ticketinvite                  the caller's pending invitations → 200 [invitation…]
//	PUT  /ticketinvite/{id}          {userId, userFrom} invite userId → 200 and the ticket
//	POST /ticketinvite/{id}/accept   +  the caller accepts their invitation → 200 and the ticket
//	POST /ticketinvite/{id}/decline  +  the caller declines it → 204
//
// The socket "invitation" events (to the invitee on an invitation, to the inviter on an
// answer) come from the journal, like every ticket event (transport/realtime).

// inviteBody is the body of PUT /ticketinvite/{id}. userFrom is whaticket's: the
// inviter, who can only be the caller (absent or null means the caller).
type inviteBody struct {
	UserID   idField `json:"userId"`
	UserFrom idField `json:"userFrom"`
}

// inviteToTicket: PUT /ticketinvite/{id}. The invitee must be a user of the caller's
// tenant other than the caller (ERR_NO_USER_FOUND 404 for another tenant's or a
// deleted user); the ticket must be one the caller reaches (another tenant's: 404
// ERR_NO_TICKET_FOUND; outside the caller's queues or held by someone else: 403
// ERR_NO_PERMISSION — engine.AuthorizeTicket) and not closed (409).
func (s *Server) inviteToTicket(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	var body inviteBody
	id, _, err := s.openTicketPut(r, p, &body, func() error {
		switch {
		case body.UserID.Bad:
			return fieldError("userId", engine.MsgInvalidValue)
		case body.UserID.ID == 0:
			return fieldError("userId", engine.MsgRequired)
		case body.UserFrom.Bad:
			return fieldError("userFrom", engine.MsgInvalidValue)
		case body.UserFrom.ID != 0 && body.UserFrom.ID != p.UserID:
			return engine.E(engine.ErrNoPermission)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if body.UserID.ID == p.UserID {
		return fieldError("userId", engine.MsgInvalidValue)
	}
	to, err := s.deps.Users.Get(r.Context(), p.CompanyID, body.UserID.ID)
	if err != nil {
		return err
	}
	from, err := s.deps.Users.Get(r.Context(), p.CompanyID, p.UserID)
	if err != nil {
		return err
	}
	return s.doTicket(w, r, p, id,
		engine.Invite{UserID: to.ID, ByUserID: p.UserID, ToName: to.Name, FromName: from.Name})
}

// answerInvite answers POST /ticketinvite/{id}/accept (accept) and …/decline. Only the
// invitee answers, for themself; without a pending invitation the answer is 403
// ERR_NO_PERMISSION (a second accept is not: it changes nothing and answers the
// ticket again).
func (s *Server) answerInvite(accept bool) authedFunc {
	return func(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
		id, err := pathID(r, "id", engine.ErrNoTicketFound)
		if err != nil {
			return err
		}
		me, err := s.deps.Users.Get(r.Context(), p.CompanyID, p.UserID)
		if err != nil {
			return err
		}
		var cmd engine.TicketCommand = engine.DeclineInvite{UserID: p.UserID, Name: me.Name}
		if accept {
			cmd = engine.AcceptInvite{UserID: p.UserID, Name: me.Name}
		}
		if accept {
			return s.doTicket(w, r, p, id, cmd)
		}
		_, pos, err := s.deps.Tickets.Do(r.Context(), p, id, cmd)
		if err != nil {
			return err
		}
		s.waitRead(r, pos) // so that GET /ticketinvite no longer lists it
		writeJSON(w, http.StatusNoContent, nil)
		return nil
	}
}

// pendingInvites: GET /ticketinvite → the caller's pending invitations, newest first
// (at most engine.PendingInvitesLimit), each shaped as the socket's "invitation"
// event with action create, so that the web app shows after a reload the notices it
// was sent before. Answered invitations and those of a closed or deleted ticket are
// not listed. Every profile has invitations: no permission beyond being signed in.
func (s *Server) pendingInvites(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	list, err := s.deps.TicketQueries.(engine.InviteQueries).PendingInvites(r.Context(), p.CompanyID, p.UserID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}
