package httpapi

import (
	"fmt"
	"net/http"

	"atende/engine"
)

// ticketUpdate is the body of PUT /tickets/{id}. userId, queueId and whatsappId may be
// numbers, numeric strings, or null / "" / 0 for "none".
type ticketUpdate struct {
	Status       string  `json:"status"`
	UserID       idField `json:"userId"`
	QueueID      idField `json:"queueId"`
	ConnectionID idField `json:"whatsappId"`
}

// updateTicket: PUT /tickets/{id} {status?, userId?, queueId?, whatsappId?} → the
// ticket after the change. The body names where the ticket should be; planUpdate
// turns that, against the ticket as the read model shows it, into one command for
// the ticket's actor, which authorises and judges it. A body that asks for where the
// ticket already is changes nothing and answers the ticket.
func (s *Server) updateTicket(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	var body ticketUpdate
	id, cur, err := s.openTicketPut(r, p, &body, nil)
	if err != nil {
		return err
	}
	cmd, err := planUpdate(p, cur, body)
	if err != nil {
		return err
	}
	if cmd == nil {
		writeJSON(w, http.StatusOK, cur)
		return nil
	}
	if err := s.checkTargets(r, p, cmd); err != nil {
		return err
	}
	return s.doTicket(w, r, p, id, cmd)
}

// openTicketPut opens the routes that change a ticket from a JSON body (PUT
// /tickets/{id}, PUT /ticketinvite/{id}): the ticket id of the path (404
// ERR_NO_TICKET_FOUND when it is not one), the body decoded into body, check (when
// not nil) run on it, and then the ticket as the read model shows it (404 for another
// tenant's), so a malformed body is refused before anything is read.
func (s *Server) openTicketPut(r *http.Request, p engine.Principal, body any, check func() error) (engine.ID, engine.Ticket, error) {
	id, err := pathID(r, "id", engine.ErrNoTicketFound)
	if err != nil {
		return 0, engine.Ticket{}, err
	}
	if err := s.decodeJSON(r, body); err != nil {
		return 0, engine.Ticket{}, err
	}
	if check != nil {
		if err := check(); err != nil {
			return 0, engine.Ticket{}, err
		}
	}
	cur, err := s.deps.TicketQueries.GetTicket(r.Context(), p.CompanyID, id)
	if err != nil {
		return 0, engine.Ticket{}, err
	}
	return id, cur, nil
}

// doTicket runs cmd on ticket id's actor and answers 200 with the ticket after it
// (ticketAfter: the read model once it has the command's events).
func (s *Server) doTicket(w http.ResponseWriter, r *http.Request, p engine.Principal, id engine.ID, cmd engine.TicketCommand) error {
	st, pos, err := s.deps.Tickets.Do(r.Context(), p, id, cmd)
	if err != nil {
		return err
	}
	t, err := s.ticketAfter(r, p, id, st, pos)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}

// planUpdate maps a PUT /tickets/{id} body onto a ticket command, given the ticket cur
// as the read model shows it. nil, nil: nothing to do.
//
// A queueId or whatsappId counts only when it differs from the ticket's (null, 0 or
// the current value keep it; a ticket cannot be taken out of its queue). A status left
// out is inferred: a userId means "open" (for that user), an explicit userId null or
// a new queue or connection means "pending", and nothing at all changes nothing.
//
//	status  ticket is  body also has                 command
//	closed  closed     -                             none
//	closed  any other  -                             Resolve (userId is ignored: the
//	                                                 web app sends the caller's own)
//	closed  any        new queue or connection       ERR_VALIDATION (not at once)
//	pending any        a userId                      ERR_VALIDATION {userId} (a pending
//	                                                 ticket has no user)
//	pending any        new queue and/or connection   Transfer{QueueID, ConnectionID}:
//	                                                 pending, no user (spec section 4)
//	pending pending    nothing new                   none
//	pending open…      nothing new                   Return
//	open    pending    user = caller, nothing new    Accept{caller}
//	open    pending    another user or new q / conn  Transfer{UserID, QueueID, ConnectionID}
//	open    open       same user, nothing new        none
//	open    open       another user or new q / conn  Transfer{UserID, …} (open for them)
//	open    closed     nothing new                   Reopen{UserID}
//	open    closed     new queue or connection       ERR_INVALID_TRANSITION (reopen first)
//
// With status open the user is userId, or the caller when it is null or left out.
// Accept and Reopen are for the caller only: a Reopen for someone else is refused by
// the actor (ERR_NO_PERMISSION), like every other rule of engine.AuthorizeTicket
// (queues, who holds the ticket, ticket-options:transferWhatsapp). A read model
// behind the actor may make the plan stale; the actor then refuses it with
// ERR_INVALID_TRANSITION and the client, which got the newer ticket by socket, retries.
func planUpdate(p engine.Principal, cur engine.Ticket, u ticketUpdate) (engine.TicketCommand, error) {
	if err := checkIDFields(map[string]idField{"userId": u.UserID, "queueId": u.QueueID, "whatsappId": u.ConnectionID}); err != nil {
		return nil, err
	}
	queue := changedID(u.QueueID, cur.QueueID)
	conn := changedID(u.ConnectionID, cur.ConnectionID)
	moves := queue != 0 || conn != 0
	status := u.Status
	if status == "" {
		switch {
		case u.UserID.ID != 0:
			status = engine.StatusOpen
		case u.UserID.Set || moves:
			status = engine.StatusPending
		default:
			return nil, nil
		}
	}
	switch status {
	case engine.StatusClosed:
		if moves {
			f := map[string]string{}
			if queue != 0 {
				f["queueId"] = engine.MsgInvalidValue
			}
			if conn != 0 {
				f["whatsappId"] = engine.MsgInvalidValue
			}
			return nil, &engine.Error{Code: engine.ErrValidation, Fields: f}
		}
		if cur.Status == engine.StatusClosed {
			return nil, nil
		}
		return engine.Resolve{}, nil
	case engine.StatusPending:
		if u.UserID.ID != 0 {
			return nil, fieldError("userId", engine.MsgInvalidValue)
		}
		if moves {
			return engine.Transfer{QueueID: queue, ConnectionID: conn}, nil
		}
		if cur.Status == engine.StatusPending {
			return nil, nil
		}
		return engine.Return{}, nil
	case engine.StatusOpen:
		user := u.UserID.ID
		if user == 0 {
			user = p.UserID
		}
		switch cur.Status {
		case engine.StatusClosed:
			if moves {
				return nil, engine.Wrap(engine.ErrInvalidTransition, fmt.Errorf("ticket %d is closed: reopen before moving it", cur.ID))
			}
			return engine.Reopen{UserID: user}, nil
		case engine.StatusPending:
			if user == p.UserID && !moves {
				return engine.Accept{UserID: p.UserID}, nil
			}
			return engine.Transfer{UserID: user, QueueID: queue, ConnectionID: conn}, nil
		default:
			if user == cur.UserID && !moves {
				return nil, nil
			}
			return engine.Transfer{UserID: user, QueueID: queue, ConnectionID: conn}, nil
		}
	default:
		return nil, fieldError("status", engine.MsgInvalidValue)
	}
}

// changedID is f's id when it names something other than cur, else 0.
func changedID(f idField, cur engine.ID) engine.ID {
	if f.ID != 0 && f.ID != cur {
		return f.ID
	}
	return 0
}

// checkTargets checks that the user and queue a command hands the ticket to belong to
// the caller's tenant: ERR_NO_USER_FOUND, ERR_NO_QUEUE_FOUND. (The connection of a
// Transfer is checked where connections live, by the actors.)
func (s *Server) checkTargets(r *http.Request, p engine.Principal, cmd engine.TicketCommand) error {
	var user, queue engine.ID
	switch c := cmd.(type) {
	case engine.Transfer:
		user, queue = c.UserID, c.QueueID
	case engine.Reopen:
		user = c.UserID
	}
	if err := s.checkUser(r.Context(), p, user); err != nil {
		return err
	}
	return s.checkQueue(r.Context(), p, queue)
}

// openBody is the body of POST /tickets.
type openBody struct {
	ContactID    idField `json:"contactId"`
	UserID       idField `json:"userId"`
	Status       string  `json:"status"`
	QueueID      idField `json:"queueId"`
	ConnectionID idField `json:"whatsappId"`
}

// createTicket: POST /tickets {contactId, userId, status, queueId?, whatsappId?} → 201
// and the new ticket. status is open (the default; userId defaults to the caller) or
// pending (no userId). whatsappId defaults to the tenant's default connection. The
// contact's pending or open ticket on that connection is 409 ERR_OTHER_OPEN_TICKET.
// Profiles without tickets-manager:showall open tickets only for themselves and only
// in their queues (the actor's rule); the user and queue must be the tenant's.
func (s *Server) createTicket(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	var body openBody
	if err := s.decodeJSON(r, &body); err != nil {
		return err
	}
	if err := checkIDFields(map[string]idField{"contactId": body.ContactID, "userId": body.UserID,
		"queueId": body.QueueID, "whatsappId": body.ConnectionID}); err != nil {
		return err
	}
	if body.ContactID.ID == 0 {
		return fieldError("contactId", engine.MsgRequired)
	}
	in := engine.OpenTicketInput{ContactID: body.ContactID.ID, UserID: body.UserID.ID, Status: body.Status,
		QueueID: body.QueueID.ID, ConnectionID: body.ConnectionID.ID}
	switch in.Status {
	case "", engine.StatusOpen:
		in.Status = engine.StatusOpen
		if in.UserID == 0 {
			in.UserID = p.UserID
		}
	case engine.StatusPending:
		if in.UserID != 0 {
			return fieldError("userId", engine.MsgInvalidValue)
		}
	default:
		return fieldError("status", engine.MsgInvalidValue)
	}
	if err := s.checkUser(r.Context(), p, in.UserID); err != nil {
		return err
	}
	if err := s.checkQueue(r.Context(), p, in.QueueID); err != nil {
		return err
	}
	st, pos, err := s.deps.Tickets.Open(r.Context(), p, in)
	if err != nil {
		return err
	}
	t, err := s.ticketAfter(r, p, st.ID, st, pos)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, t)
	return nil
}
