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
	Commander   Commander
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
	ticketID := d.TicketID
	if ticketID == 0 {
		var err error
		if ticketID, err = s.ticketFor(ctx, d); err != nil {
			return 0, err
		}
	}
	st, err := tickets.State(ctx, d.CompanyID, ticketID)
	if err != nil {
		return 0, err
	}
	if !st.Exists() || st.CompanyID != d.CompanyID || st.Deleted {
		return 0, engine.Wrap(engine.ErrNoTicketFound, fmt.Errorf("scheduled message %d: ticket %d", d.MessageID, ticketID))
	}
	_, err = tickets.Do(ctx, d.CompanyID, ticketID, nil, st.WhatsappID, engine.SendAutomaticMessage{
		MessageID: d.MessageID, Body: d.Body, MediaType: d.MediaType, MediaURL: d.MediaPath})
	if err != nil {
		return 0, err
	}
	return ticketID, nil
}

// ticketFor finds or opens the ticket of d's contact on its connection.
func (s ScheduleSender) ticketFor(ctx context.Context, d engine.ScheduledDelivery) (engine.ID, error) {
	connID := d.ConnectionID
	if connID == 0 {
		conns, err := s.Connections.List(ctx, d.CompanyID)
		if err != nil {
			return 0, err
		}
		for _, c := range conns {
			if c.IsDefault {
				connID = c.ID
			}
		}
		if connID == 0 {
			return 0, engine.E(engine.ErrNoDefWappFound)
		}
	}
	current := func() (engine.ID, error) {
		cur, err := s.Guard.Current(ctx, connID, d.ContactID)
		if err != nil || cur == 0 {
			return 0, err
		}
		st, err := (Tickets{Node: s.Node}).State(ctx, d.CompanyID, cur)
		if err != nil {
			return 0, err
		}
		if st.Status == engine.StatusOpen || st.Status == engine.StatusPending {
			return cur, nil
		}
		return 0, nil
	}
	if cur, err := current(); err != nil || cur != 0 {
		return cur, err
	}
	u, err := s.Users.Get(ctx, d.CompanyID, d.UserID)
	if err != nil {
		return 0, err
	}
	p := engine.Principal{UserID: u.ID, CompanyID: u.CompanyID, Profile: u.Profile}
	for _, q := range u.Queues {
		p.QueueIDs = append(p.QueueIDs, q.ID)
	}
	st, _, err := s.Commander.Open(ctx, p, engine.OpenTicketInput{ContactID: d.ContactID, Status: engine.StatusPending, WhatsappID: connID})
	if engine.CodeOf(err) == engine.ErrOtherOpenTicket {
		// Opened meanwhile (an inbound message, another attendant): use that one.
		return current()
	}
	if err != nil {
		return 0, err
	}
	return st.ID, nil
}
