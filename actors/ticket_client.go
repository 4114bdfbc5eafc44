package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"atende/actors/wire"
	"atende/engine"
)

// Tickets sends commands to ticket actors wherever the cluster placed them.
type Tickets struct{ Node *Node }

// Do runs cmd on ticket id for companyID. p is the staff member acting (nil for the
// system); conn, when non-zero, is the connection sending a channel-side command.
func (t Tickets) Do(ctx context.Context, companyID, id engine.ID, p *engine.Principal, conn engine.ID, cmd engine.TicketCommand) (TicketReply, error) {
	body, err := json.Marshal(cmd)
	if err != nil {
		return TicketReply{}, fmt.Errorf("encode %s: %w", cmd.CommandName(), err)
	}
	return t.call(ctx, companyID, id, cmd.CommandName(), TicketRequest{Principal: p, Connection: conn, Command: body})
}

// State reads the ticket's current state from its actor.
func (t Tickets) State(ctx context.Context, companyID, id engine.ID) (engine.TicketState, error) {
	r, err := t.call(ctx, companyID, id, QueryTicketState, TicketRequest{})
	return r.Ticket, err
}

// KnowsProviderID reports whether ticket id already recorded a message with the
// channel's providerID.
func (t Tickets) KnowsProviderID(ctx context.Context, companyID, id engine.ID, providerID string) (bool, error) {
	q, _ := json.Marshal(map[string]string{"providerId": providerID})
	r, err := t.call(ctx, companyID, id, QueryProviderID, TicketRequest{Command: q})
	return r.KnowsProvider, err
}

func (t Tickets) call(ctx context.Context, companyID, id engine.ID, typ string, req TicketRequest) (TicketReply, error) {
	payload, err := json.Marshal(req)
	if err != nil {
		return TicketReply{}, fmt.Errorf("encode %s: %w", typ, err)
	}
	out, err := t.Node.Call(ctx, KindTicket, strconv.FormatInt(id, 10), &wire.Command{Type: typ, Payload: payload, CompanyId: companyID})
	if err != nil {
		return TicketReply{}, err
	}
	var r TicketReply
	if err := json.Unmarshal(out, &r); err != nil {
		return TicketReply{}, fmt.Errorf("decode %s reply: %w", typ, err)
	}
	return r, nil
}
