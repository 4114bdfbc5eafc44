package actors

import (
	"context"
	"encoding/json"
	"errors"
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

// Restart stops the connection's channel and starts it again, and has its inbound
// partitions read the connection row again.
func (c Connections) Restart(ctx context.Context, id engine.ID) error {
	if err := c.call(ctx, id, 0, CmdConnectionRestart, nil, nil); err != nil {
		return err
	}
	c.reloadPartitions(ctx, id)
	return nil
}

// OpenTicket opens a ticket for a contact on connection id on behalf of a person:
// at the contact's inbound partition when req.Number is known, else through the
// connection actor, which learns the number and forwards it there.
func (c Connections) OpenTicket(ctx context.Context, id engine.ID, req OpenTicketRequest) (TicketReply, error) {
	kind, identity := KindConnection, strconv.FormatInt(id, 10)
	if req.Number != "" {
		kind, identity = c.target(id, req.Number)
	}
	var r TicketReply
	err := c.callAt(ctx, kind, identity, req.Principal.CompanyID, CmdConnectionOpenTicket, req, &r)
	return r, err
}

// Inbound records a message a provider delivered to this node for connection id; it
// returns once the message is durable, wherever the actor of its customer lives.
func (c Connections) Inbound(ctx context.Context, id engine.ID, m engine.InboundMessage) error {
	kind, identity := c.target(id, m.From.Number)
	return c.callAt(ctx, kind, identity, 0, CmdConnectionInbound, m, nil)
}

// Receipt records a delivery receipt for connection id.
func (c Connections) Receipt(ctx context.Context, id engine.ID, r engine.Receipt) error {
	return c.call(ctx, id, 0, CmdConnectionReceipt, r, nil)
}

// Status records a session state change of connection id learned on this node.
func (c Connections) Status(ctx context.Context, id engine.ID, s engine.StatusChange) error {
	return c.call(ctx, id, 0, CmdConnectionStatus, s, nil)
}

// Stop ends connection id's session (DELETE /whatsappsession).
func (c Connections) Stop(ctx context.Context, id engine.ID) error {
	return c.call(ctx, id, 0, CmdConnectionStop, nil, nil)
}

// PhoneContacts reads the address book of connection id's session
// (CmdConnectionContacts).
func (c Connections) PhoneContacts(ctx context.Context, id engine.ID) ([]engine.PhoneContact, error) {
	var out []engine.PhoneContact
	err := c.call(ctx, id, 0, CmdConnectionContacts, nil, &out)
	return out, err
}

// Wipe ends connection id's session and wipes its credentials (DELETE /whatsappcreds).
func (c Connections) Wipe(ctx context.Context, id engine.ID) error {
	return c.call(ctx, id, 0, CmdConnectionWipe, nil, nil)
}

// Sink returns an engine.ChannelSink that delivers to connection id through the
// cluster: what a web-hook handler on any node uses.
func (c Connections) Sink(id engine.ID) engine.ChannelSink { return remoteSink{c: c, id: id} }

type remoteSink struct {
	c  Connections
	id engine.ID
}

func (s remoteSink) Inbound(ctx context.Context, m engine.InboundMessage) error {
	return unreached(s.c.Inbound(ctx, s.id, m))
}
func (s remoteSink) Receipt(ctx context.Context, r engine.Receipt) error {
	return unreached(s.c.Receipt(ctx, s.id, r))
}
func (s remoteSink) Status(ctx context.Context, st engine.StatusChange) error {
	return unreached(s.c.Status(ctx, s.id, st))
}

// unreached gives a call that did not reach the actor, or got no answer in time
// (ErrUnavailable, a deadline), the code ERR_UNAVAILABLE, as a sink's caller
// expects of a failure worth retrying (the actor's own sink answers a timeout so):
// a web-hook answers it 503 with Retry-After. Other errors pass unchanged.
func unreached(err error) error {
	var e *engine.Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	if errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		return engine.Wrap(engine.ErrUnavailable, err)
	}
	return err
}

func (c Connections) call(ctx context.Context, id, companyID engine.ID, typ string, req, out any) error {
	return c.callAt(ctx, KindConnection, strconv.FormatInt(id, 10), companyID, typ, req, out)
}

func (c Connections) callAt(ctx context.Context, kind, identity string, companyID engine.ID, typ string, req, out any) error {
	payload, err := encode(typ, req)
	if err != nil {
		return err
	}
	body, err := c.Node.Call(ctx, kind, identity, &wire.Command{Type: typ, Payload: payload, CompanyId: companyID})
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

// encode marshals a command's payload.
func encode(typ string, req any) ([]byte, error) {
	if req == nil {
		return nil, nil
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", typ, err)
	}
	return b, nil
}
