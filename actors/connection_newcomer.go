package actors

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"atende/actors/wire"
	"atende/engine"
)

// A newcomer is a number the actor does not know yet: a customer writing for the
// first time, or any customer after the actor's activation. Learning who it is and
// opening its ticket takes several store round trips (the contact, the guard, the
// locator, the ticket's id, the guard's claim, the ticket's opening in the journal),
// which would hold every other customer's message behind them if the actor made
// them itself. They run in a goroutine instead (the stores, the guard and the ticket
// actor are safe to call from anywhere), one per number at a time; the actor goes on
// with the others, and resumes the newcomer's messages in their order once it is
// known (ReenterAfter runs continuations in the order they were registered).

// newcomer is what the goroutine learned about a number.
type newcomer struct {
	contactID engine.ID
	ticket    engine.ID // the contact's current ticket (opened here when opened is set)
	opened    bool
	openedAt  time.Time
	where     engine.Stored // the durable record's answer for the first message's provider id
	messageID engine.ID
	delivered bool        // the opening recorded the message (engine.OpenTicket.First)
	reply     TicketReply // the ticket's answer to that opening
	err       error
}

// newcomerInput is what the goroutine needs: copied, so that the actor may change
// its own state meanwhile.
type newcomerInput struct {
	m         engine.InboundMessage
	connID    engine.ID
	companyID engine.ID
	channel   string
	queueID   engine.ID              // the ticket's queue: the connection's only queue, if one
	first     *engine.ReceiveMessage // the message as its ticket records it, without its id (nil: from our phone)
	greet     *botGreeting           // the bot's greeting, recorded with the opening (nil: answered after it)
	system    *actor.ActorSystem
}

// welcome resolves the first message of a number the actor does not know, in a
// goroutine, and then handles it (and every message of that number that arrived in
// the meantime) as any other.
func (a *connActor) welcome(ctx actor.Context, msg *inboundMsg) {
	num := msg.m.From.Number
	if a.afterResolving(ctx, num, func() { a.onInbound(ctx, msg) }) {
		return
	}
	in := newcomerInput{m: msg.m, connID: a.id, companyID: a.conn.CompanyID, channel: a.conn.Channel,
		system: ctx.ActorSystem()}
	in.queueID = a.onlyQueue()
	if !msg.m.FromMe {
		first := a.receiveCommand(&inboundJob{m: msg.m})
		in.first, in.greet = &first, a.greetOnOpen(msg.m)
	}
	resolveOff(a, ctx, num, 3*a.cfg.CallTimeout, func() newcomer { return a.resolveNewcomer(in) },
		func(out newcomer, err error) {
			if err == nil {
				err = out.err
			}
			if err != nil {
				a.answer(ctx, err)
				return
			}
			a.settleNewcomer(ctx, msg, out)
		})
}

// afterResolving reports whether number num is resolving (resolveOff); if so, again
// runs once that work is done, so that the number's messages and opens keep their
// order.
func (a *connActor) afterResolving(ctx actor.Context, num string, again func()) bool {
	f := a.resolving[num]
	if f == nil {
		return false
	}
	ctx.ReenterAfter(f, func(any, error) { again() })
	return true
}

// resolveOff runs work outside the actor (offActor) with number num resolving
// meanwhile: the number's later messages, reads and opens wait for it
// (afterResolving), then done runs in the actor.
func resolveOff[T any](a *connActor, ctx actor.Context, num string, timeout time.Duration, work func() T, done func(T, error)) {
	var f *actor.Future
	f = offActor(ctx, a.cfg.Routines, timeout, work, func(r T, err error) {
		if a.resolving[num] == f {
			delete(a.resolving, num)
		}
		done(r, err)
	})
	if f != nil {
		a.resolving[num] = f
	}
}

// settleNewcomer records, in the actor, what the resolution of msg's number learned,
// and routes msg.
func (a *connActor) settleNewcomer(ctx actor.Context, msg *inboundMsg, out newcomer) {
	num := msg.m.From.Number
	a.contacts.set(num, out.contactID)
	a.numbers.set(out.contactID, num)
	if _, known := a.tickets.get(out.contactID); !known {
		a.tickets.set(out.contactID, out.ticket)
		if out.opened {
			a.since.set(out.contactID, opened{ticket: out.ticket, at: out.openedAt})
		}
	}
	job := &inboundJob{m: msg.m, contactID: out.contactID, messageID: out.messageID, where: out.where}
	if out.opened {
		job.opened = out.ticket
	}
	if out.delivered {
		a.received(ctx, job, out.ticket, out.reply) // the opening recorded the message
		return
	}
	a.route(ctx, job)
}

// resolveNewcomer runs outside the actor: the contact (created on its first
// message), its current ticket by the guard, whether the message is stored already,
// and — when the contact has no ticket and the message is new — a pending ticket,
// claimed in the guard and opened in the journal (claimAndOpen).
func (a *connActor) resolveNewcomer(in newcomerInput) newcomer {
	ctx, cancel := context.WithTimeout(context.Background(), 2*a.cfg.CallTimeout)
	defer cancel()
	var out newcomer
	c, created, err := a.cfg.Contacts.FindOrCreateByNumber(ctx, in.companyID, in.m.From.Number, in.m.From.Name)
	if err != nil {
		out.err = err
		return out
	}
	out.contactID = c.ID
	if created {
		// A contact created just now has no ticket and no stored message yet.
		out.where.Asked = a.cfg.Locator != nil
	} else if out.ticket, err = a.cfg.Guard.Current(ctx, in.connID, c.ID); err != nil {
		out.err = engine.Wrap(engine.ErrUnavailable, err)
		return out
	}
	if a.cfg.Locator != nil && !created {
		tid, _, found, err := a.cfg.Locator.ByProviderID(ctx, in.connID, in.m.ProviderID)
		if err != nil {
			out.err = engine.Wrap(engine.ErrUnavailable, err)
			return out
		}
		out.where = engine.Stored{Asked: true, Found: found, Ticket: tid}
	}
	if out.messageID, err = a.cfg.IDs.Next(ctx, "message"); err != nil {
		out.err = engine.Wrap(engine.ErrUnavailable, err)
		return out
	}
	if out.ticket != 0 || out.where.Found {
		return out // the actor routes it, or acknowledges a redelivery
	}
	var first *engine.ReceiveMessage
	if in.first != nil {
		m := *in.first
		m.MessageID = out.messageID
		if out.err = m.Validate(); out.err != nil {
			return out // refused before anything is claimed
		}
		first = &m
	}
	o, err := a.claimAndOpen(ctx, in.system, openSpec{companyID: in.companyID, connID: in.connID, channel: in.channel,
		contactID: c.ID, queueID: in.queueID, onlyQueue: true, status: engine.StatusPending, first: first, greet: in.greet})
	if err != nil {
		out.err = err
		return out
	}
	out.ticket = o.ticket
	if !o.claimed { // another activation, or a person, opened one first: use it
		return out
	}
	out.opened, out.openedAt = true, o.reply.Ticket.CreatedAt
	out.delivered, out.reply = first != nil, o.reply
	if out.openedAt.IsZero() {
		out.openedAt = o.at
	}
	return out
}

// newTicketCommand is the OpenTicket of a ticket the connection opens.
func newTicketCommand(tid, companyID, contactID, connID engine.ID, channel string, queueID, userID engine.ID,
	status string, now time.Time) engine.OpenTicket {
	return engine.OpenTicket{TicketID: tid, UUID: uuid.NewString(), CompanyID: companyID,
		ContactID: contactID, ConnectionID: connID, Channel: channel, QueueID: queueID, UserID: userID,
		Status: status, Protocol: now.Format("20060102") + "-" + strconv.FormatInt(tid, 10)}
}

// ticketWireCommand encodes a command (or, with cmd nil, a state query) for ticket
// tid on behalf of p (nil: the system).
func ticketWireCommand(tid engine.ID, p *engine.Principal, connID, companyID engine.ID, cmd engine.TicketCommand) (*wire.Command, error) {
	typ := QueryTicketState
	req := TicketRequest{Principal: p, Connection: connID}
	if cmd != nil {
		body, err := json.Marshal(cmd)
		if err != nil {
			return nil, engine.Wrap(engine.ErrInternal, err)
		}
		typ, req.Command = cmd.CommandName(), body
	}
	payload, err := json.Marshal(req)
	if err != nil {
		return nil, engine.Wrap(engine.ErrInternal, err)
	}
	return &wire.Command{Type: typ, Payload: payload, CompanyId: companyID}, nil
}
