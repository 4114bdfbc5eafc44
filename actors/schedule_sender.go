package actors

import (
	"context"
	"fmt"

	"atende/engine"
)

// ScheduleSender implements engine.ScheduleSender on the actors: a due scheduled
// message is recorded on its ticket by the ticket actor as a message of ours
// (SendAutomaticMessage, by the connection), and the connection's outbound path sends
// it as it sends every message, re-sending after a restart from the outbox. The ticket
// records a message id once, so delivering the same ScheduledDelivery twice sends once.
type ScheduleSender struct {
	Node        *Node
	Guard       engine.TicketGuard
	Users       engine.UserStore
	Connections engine.ConnectionStore
}

var _ engine.ScheduleSender = ScheduleSender{}

// DeliverScheduled implements engine.ScheduleSender. Without a ticket the message goes
// to the contact's current pending or open ticket on the connection (the tenant's
// default connection when none is named); when there is none, a pending ticket is
// opened for it on behalf of the user who scheduled it, as POST /tickets would.
func (s ScheduleSender) DeliverScheduled(ctx context.Context, d engine.ScheduledDelivery) (engine.ID, error) {
	tickets := Tickets{Node: s.Node}
	var (
		st  engine.TicketState
		err error
	)
	if d.TicketID == 0 {
		st, err = s.ticketFor(ctx, d)
	} else {
		st, err = tickets.State(ctx, d.CompanyID, d.TicketID)
	}
	if err != nil {
		return 0, err
	}
	if !st.Exists() || st.CompanyID != d.CompanyID || st.Deleted {
		return 0, engine.Wrap(engine.ErrNoTicketFound, fmt.Errorf("scheduled message %d: ticket %d", d.MessageID, d.TicketID))
	}
	_, err = tickets.Do(ctx, d.CompanyID, st.ID, nil, st.ConnectionID, engine.SendAutomaticMessage{
		MessageID: d.MessageID, Body: d.Body, MediaType: d.MediaType, MediaURL: d.MediaPath})
	if err != nil {
		return 0, err
	}
	return st.ID, nil
}

// ticketFor finds or opens the ticket of d's contact on its connection, and answers
// its state.
func (s ScheduleSender) ticketFor(ctx context.Context, d engine.ScheduledDelivery) (engine.TicketState, error) {
	connID := d.ConnectionID
	if connID == 0 {
		var err error
		if connID, err = s.Connections.DefaultID(ctx, d.CompanyID); err != nil {
			return engine.TicketState{}, err
		}
	}
	// cur is the guard's current ticket as last read: first as the fire read it, when
	// it did, for the connection used here.
	cur, read := d.Current, d.CurrentRead && connID == d.ConnectionID
	current := func() (engine.TicketState, bool, error) {
		var err error
		if !read {
			cur, err = s.Guard.Current(ctx, connID, d.ContactID)
		}
		read = false
		if err != nil || cur == 0 {
			return engine.TicketState{}, false, err
		}
		st, err := (Tickets{Node: s.Node}).State(ctx, d.CompanyID, cur)
		if err != nil {
			return engine.TicketState{}, false, err
		}
		return st, st.Status == engine.StatusOpen || st.Status == engine.StatusPending, nil
	}
	if st, ok, err := current(); err != nil || ok {
		return st, err
	}
	p := d.By
	if !p.Valid() {
		u, err := s.Users.Get(ctx, d.CompanyID, d.UserID)
		if err != nil {
			return engine.TicketState{}, err
		}
		p = engine.Principal{UserID: u.ID, CompanyID: u.CompanyID, Profile: u.Profile}
		for _, q := range u.Queues {
			p.QueueIDs = append(p.QueueIDs, q.ID)
		}
	}
	// The connection actor opens it, as Commander.Open has it do, without that
	// method's read of the connection: the actor itself refuses a connection that is
	// gone or another tenant's (ERR_NO_WAPP_FOUND), and a due message names only its
	// tenant's. The contact's number and the guard's current ticket go with the
	// request, so that the actor need not read them again.
	r, err := Connections{Node: s.Node}.OpenTicket(ctx, connID, OpenTicketRequest{Principal: p,
		ContactID: d.ContactID, Status: engine.StatusPending, Number: d.ContactNumber,
		Current: cur, CurrentRead: true})
	st := r.Ticket
	if engine.CodeOf(err) == engine.ErrOtherOpenTicket {
		// Opened meanwhile (an inbound message, another attendant): use that one.
		st, ok, err := current()
		if err == nil && !ok {
			err = engine.Wrap(engine.ErrNoTicketFound, fmt.Errorf("scheduled message %d: no ticket for contact %d", d.MessageID, d.ContactID))
		}
		return st, err
	}
	return st, err
}
