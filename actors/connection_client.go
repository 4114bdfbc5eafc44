package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"atende/actors/wire"
	"atende/engine"
)

// Connections sends commands to connection actors wherever the cluster placed them.
type Connections struct{ Node *Node }

// Start activates connection id (and so starts its channel); idempotent.
func (c Connections) Start(ctx context.Context, id engine.ID) (engine.Connection, error) {
	var conn engine.Connection
	err := c.call(ctx, id, 0, CmdConnectionStart, nil, &conn)
	return conn, err
}

// Restart stops the connection's channel and starts it again.
func (c Connections) Restart(ctx context.Context, id engine.ID) error {
	return c.call(ctx, id, 0, CmdConnectionRestart, nil, nil)
}

// OpenTicket opens a ticket for a contact on connection id on behalf of a person.
func (c Connections) OpenTicket(ctx context.Context, id engine.ID, req OpenTicketRequest) (TicketReply, error) {
	var r TicketReply
	err := c.call(ctx, id, req.Principal.CompanyID, CmdConnectionOpenTicket, req, &r)
	return r, err
}

func (c Connections) call(ctx context.Context, id, companyID engine.ID, typ string, req, out any) error {
	var payload []byte
	if req != nil {
		var err error
		if payload, err = json.Marshal(req); err != nil {
			return fmt.Errorf("encode %s: %w", typ, err)
		}
	}
	body, err := c.Node.Call(ctx, KindConnection, strconv.FormatInt(id, 10), &wire.Command{Type: typ, Payload: payload, CompanyId: companyID})
	if err != nil {
		return err
	}
	if out == nil || len(body) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decode %s reply: %w", typ, err)
	}
	return nil
}
