package actors

import (
	"context"

	"atende/engine"
)

// Commander implements engine.TicketCommander on the actor cluster.
type Commander struct {
	Node        *Node
	Connections engine.ConnectionStore
}

var _ engine.TicketCommander = Commander{}

// Do implements engine.TicketCommander.
func (c Commander) Do(ctx context.Context, p engine.Principal, id engine.ID, cmd engine.TicketCommand) (engine.TicketState, int64, error) {
	r, err := Tickets{Node: c.Node}.Do(ctx, p.CompanyID, id, &p, 0, cmd)
	return r.Ticket, r.Position, err
}

// Open implements engine.TicketCommander: the ticket is opened by the connection's
// actor, the only place that may open tickets of that connection.
func (c Commander) Open(ctx context.Context, p engine.Principal, in engine.OpenTicketInput) (engine.TicketState, int64, error) {
	connID := in.ConnectionID
	if connID == 0 {
		var err error
		if connID, err = c.Connections.DefaultID(ctx, p.CompanyID); err != nil {
			return engine.TicketState{}, 0, err
		}
	} else if _, err := c.Connections.Get(ctx, p.CompanyID, connID); err != nil {
		return engine.TicketState{}, 0, err
	}
	status := in.Status
	if status == "" {
		status = engine.StatusOpen
	}
	r, err := Connections{Node: c.Node}.OpenTicket(ctx, connID, OpenTicketRequest{Principal: p,
		ContactID: in.ContactID, UserID: in.UserID, QueueID: in.QueueID, Status: status})
	return r.Ticket, r.Position, err
}
