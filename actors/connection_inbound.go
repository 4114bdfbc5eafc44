package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"atende/actors/wire"
	"atende/engine"
)

// inboundMsg carries one channel message from the sink into the actor; the actor
// answers the sink (nil or an error) once the message is durable in its ticket.
type inboundMsg struct{ m engine.InboundMessage }

// inboundJob is one inbound message on its way to a ticket: what engine.RouteInbound
// needs to know of it besides the connection's memory.
type inboundJob struct {
	m         engine.InboundMessage
	contactID engine.ID
	messageID engine.ID
	opened    engine.ID     // the ticket this job opened: greeted once the message is in
	where     engine.Stored // the durable record's answer, once asked
	refused   engine.ID     // the ticket that refused the message last (0: none)
	refusals  int
	refusal   error // that refusal, answered to the channel when it stands
}

func (a *connActor) onInbound(ctx actor.Context, msg *inboundMsg) {
	if !a.loaded {
		a.answer(ctx, engine.Wrap(engine.ErrWappNotInitialized, fmt.Errorf("connection %d not loaded", a.id)))
		return
	}
	a.refreshIfStale(ctx)
	m := msg.m
	if m.RevokedProviderID != "" {
		a.onRevoke(ctx, m)
		return
	}
	if m.ProviderID == "" {
		a.answer(ctx, engine.Wrap(engine.ErrValidation, errors.New("inbound message without provider id")))
		return
	}
	// A number being resolved keeps its order even when another path (a reply's
	// learnNumber) learned the contact meanwhile: it waits on the same lookup.
	contactID, known := a.contacts.get(m.From.Number)
	if !known || a.resolving[m.From.Number] != nil {
		a.welcome(ctx, msg)
		return
	}
	mid, err := a.nextID("message")
	if err != nil {
		a.answer(ctx, err)
		return
	}
	a.route(ctx, &inboundJob{m: m, contactID: contactID, messageID: mid})
}

// route carries out engine.RouteInbound's next step for job: it asks the durable
// record, acknowledges a redelivery, opens the customer's ticket, or delivers the
// message to it; the sink is answered once the message is durable in its ticket (or
// known to be stored already). A contact whose current ticket the actor does not
// know has it read from the guard first.
func (a *connActor) route(ctx actor.Context, job *inboundJob) {
	tid, known := a.tickets.get(job.contactID)
	if !known {
		contactID, guard, connID := job.contactID, a.cfg.Guard, a.id
		a.readThenRoute(ctx, job, func(c context.Context) (func(), error) {
			tid, err := guard.Current(c, connID, contactID)
			if err != nil {
				return nil, engine.Wrap(engine.ErrUnavailable, err)
			}
			return func() {
				if _, meanwhile := a.tickets.get(contactID); !meanwhile {
					a.tickets.set(contactID, tid)
				}
			}, nil
		})
		return
	}
	since := a.since.at(job.contactID)
	d := engine.RouteInbound(engine.InboundRoute{Ticket: tid, Opened: job.opened, At: job.m.At,
		SinceTicket: since.ticket, Since: since.at, Locator: a.cfg.Locator != nil, Stored: job.where,
		Refused: job.refused, Refusals: job.refusals})
	switch d.Effect {
	case engine.RouteAskStored:
		locator, connID, pid := a.cfg.Locator, a.id, job.m.ProviderID
		a.readThenRoute(ctx, job, func(c context.Context) (func(), error) {
			where, err := storedAt(c, locator, connID, pid)
			return func() { job.where = where }, err
		})
	case engine.RouteAcknowledge:
		a.log.Info().Str("provider_id", job.m.ProviderID).Int64("ticket_id", d.Ticket).
			Msg("redelivered message already stored: acknowledged")
		a.answer(ctx, nil)
	case engine.RouteOpen:
		a.openThenRoute(ctx, job, d.Prev)
	case engine.RouteDeliver:
		a.deliverInbound(ctx, job, d.Ticket)
	default: // engine.RouteGiveUp
		a.answer(ctx, job.refusal)
	}
}

// readResult carries a read made for the routing back into the actor: apply records
// what it learned.
type readResult struct {
	apply func()
	err   error
}

// readThenRoute makes a store read the routing of job needs (the guard, the durable
// record) outside the actor, then routes job again. Meanwhile the number is
// resolving, so its later messages wait behind job and keep their order; a read or
// an open of that number already in flight is waited for first. read's apply runs in
// the actor.
func (a *connActor) readThenRoute(ctx actor.Context, job *inboundJob, read func(context.Context) (func(), error)) {
	num := job.m.From.Number
	if a.afterResolving(ctx, num, func() { a.route(ctx, job) }) {
		return
	}
	timeout := a.cfg.CallTimeout
	resolveOff(a, ctx, num, 2*timeout, func() readResult {
		c, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		apply, err := read(c)
		return readResult{apply: apply, err: err}
	}, func(r readResult, err error) {
		if err == nil {
			err = r.err
		}
		if err != nil {
			a.answer(ctx, err)
			return
		}
		r.apply()
		a.route(ctx, job)
	})
}

// deliverInbound hands job's message to ticket tid. A refusal (the ticket was
// resolved, deleted or moved) goes back to the routing, which opens the successor.
func (a *connActor) deliverInbound(ctx actor.Context, job *inboundJob, tid engine.ID) {
	m := job.m
	var cmd engine.TicketCommand = a.receiveCommand(job)
	if m.FromMe {
		cmd = engine.SendAutomaticMessage{MessageID: job.messageID, ProviderID: m.ProviderID, Body: m.Body,
			MediaType: m.MediaType, MediaURL: m.MediaPath}
	}
	f, err := a.ticketFuture(ctx, tid, cmd)
	if err != nil {
		a.answer(ctx, err)
		return
	}
	ctx.ReenterAfter(f, func(res any, ferr error) {
		r, err := ticketResult(res, ferr)
		if err == nil {
			a.received(ctx, job, tid, r)
			return
		}
		if code := engine.CodeOf(err); code == engine.ErrInvalidTransition || code == engine.ErrNoTicketFound {
			job.refused, job.refusal = tid, err
			job.refusals++
			a.route(ctx, job)
			return
		}
		a.answer(ctx, err)
	})
}

// receiveCommand is the ReceiveMessage of job's message.
func (a *connActor) receiveCommand(job *inboundJob) engine.ReceiveMessage {
	m := job.m
	return engine.ReceiveMessage{MessageID: job.messageID, ProviderID: m.ProviderID, Body: m.Body,
		MediaType: m.MediaType, MediaURL: m.MediaPath, QuotedID: a.quotedID(m.QuotedProviderID)}
}

// received follows job's message once ticket tid recorded it (r: the ticket's
// answer): the answer to a rating is thanked; otherwise a flow, the intent router or
// the reception menu may answer the customer. The sink hears back once the message
// — and the greeting or menu that answers it, when there is one — is durable.
func (a *connActor) received(ctx actor.Context, job *inboundJob, tid engine.ID, r TicketReply) {
	m := job.m
	if !r.Ticket.CreatedAt.IsZero() && a.tickets.at(job.contactID) == tid {
		a.since.set(job.contactID, opened{ticket: tid, at: r.Ticket.CreatedAt})
	}
	switch {
	case m.FromMe:
	case r.Events > 0 && r.Ticket.Status == engine.StatusClosed && r.Ticket.Rated:
		// A closed ticket takes a message only as the answer to its rating.
		a.thankRating(ctx, tid, r.Ticket.CompanyID, r.Ticket.QueueID)
	default:
		// menuAfter answers with the reception menu once the message is already
		// acknowledged (after a flow or the intent router declined): its failure
		// is logged.
		menuAfter := func() {
			a.automate(ctx, r.Ticket, m, func(err error) {
				if err != nil {
					a.log.Warn().Err(err).Int64("ticket_id", tid).Msg("reception menu after a flow or intent declined")
				}
			})
		}
		if a.flowMayRun(r.Ticket, m) {
			// A Bizflow flow of the connection or queue takes the message first
			// (docs/flows.md); it journals its own steps, so the sink hears back
			// at once. Without a flow to start or feed, the reception menu answers.
			a.answer(ctx, nil)
			a.withFlow(ctx, r.Ticket, m, job.opened == tid, menuAfter)
			return
		}
		if job.opened == tid && a.routeByIntent(ctx, r.Ticket, m, menuAfter) {
			// The intent router picks the queue and greets once it has decided
			// (connection_intent.go); the message is stored, so the sink hears now.
			a.answer(ctx, nil)
			return
		}
		// The greeting, menu or absence message answers the customer's message
		// (a redelivered one too, if its answer was never recorded); the sink
		// hears back once that answer is durable.
		a.automate(ctx, r.Ticket, m, func(err error) { a.answer(ctx, err) })
		return
	}
	a.answer(ctx, nil)
}

func (a *connActor) nextID(name string) (engine.ID, error) {
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	id, err := a.cfg.IDs.Next(ctx, name)
	if err != nil {
		return 0, engine.Wrap(engine.ErrUnavailable, err)
	}
	return id, nil
}

// openThenRoute opens a pending ticket for job's customer, whose message found no
// ticket or a refusing one (prev; 0: none), then routes job to it. The opening
// (claimAndOpen) runs outside the actor; meanwhile the number is resolving, so its
// later messages, and a person's open for the contact, wait for it and keep their
// order. An open or a resolution of the number already in flight is waited for
// first: it may bring the ticket. A customer's message is recorded by the opening
// itself (engine.OpenTicket.First); a message from the connection's own phone is
// routed to the new ticket after it.
func (a *connActor) openThenRoute(ctx actor.Context, job *inboundJob, prev engine.ID) {
	num := job.m.From.Number
	if a.afterResolving(ctx, num, func() { a.route(ctx, job) }) {
		return
	}
	spec := openSpec{companyID: a.conn.CompanyID, connID: a.id, channel: a.conn.Channel, contactID: job.contactID,
		prev: prev, queueID: a.onlyQueue(), onlyQueue: true, status: engine.StatusPending}
	if !job.m.FromMe {
		// The customer's message travels with the opening: one command, one append.
		first := a.receiveCommand(job)
		if err := first.Validate(); err != nil {
			a.answer(ctx, err) // refused before anything is claimed
			return
		}
		spec.first, spec.greet = &first, a.greetOnOpen(job.m)
	}
	system, timeout := ctx.ActorSystem(), a.cfg.CallTimeout
	resolveOff(a, ctx, num, 3*timeout, func() openedOff {
		c, cancel := context.WithTimeout(context.Background(), 2*timeout)
		defer cancel()
		o, err := a.claimAndOpen(c, system, spec)
		return openedOff{o, err}
	}, func(r openedOff, err error) {
		if r.o.ticket != 0 {
			a.tickets.set(job.contactID, r.o.ticket)
		}
		if r.o.claimed {
			a.since.set(job.contactID, opened{ticket: r.o.ticket, at: r.o.at})
		}
		if err == nil {
			err = r.err
		}
		if err == nil && r.o.ticket == 0 {
			err = engine.Wrap(engine.ErrUnavailable, fmt.Errorf("no ticket for contact %d after a claim", job.contactID))
		}
		if err != nil {
			a.answer(ctx, err)
			return
		}
		job.opened, job.refused = r.o.ticket, 0
		if r.o.claimed && spec.first != nil {
			a.received(ctx, job, r.o.ticket, r.o.reply) // the opening recorded the message
			return
		}
		a.route(ctx, job)
	})
}

// openedOff carries claimAndOpen's answer back into the actor.
type openedOff struct {
	o   opening
	err error
}

// sendAutomatic records a greeting or farewell on the ticket; the ticket's dispatch
// hands it back to this actor for sending. mediaPath (a media store path, e.g. the
// connection's greeting image) makes it an image with body as its caption; nothing is
// sent when both are empty.
func (a *connActor) sendAutomatic(ctx actor.Context, tid engine.ID, body, mediaPath string) {
	if (strings.TrimSpace(body) == "" && mediaPath == "") || tid == 0 {
		return
	}
	cmd := engine.SendAutomaticMessage{Body: body}
	if mediaPath != "" {
		cmd.MediaType, cmd.MediaURL = engine.MediaImage, mediaPath
	}
	mid, err := a.nextID("message")
	if err != nil {
		a.log.Warn().Err(err).Int64("ticket_id", tid).Msg("automatic message: no id")
		return
	}
	cmd.MessageID = mid
	f, err := a.ticketFuture(ctx, tid, cmd)
	if err != nil {
		a.log.Warn().Err(err).Int64("ticket_id", tid).Msg("automatic message")
		return
	}
	ctx.ReenterAfter(f, func(res any, ferr error) {
		if _, err := ticketResult(res, ferr); err != nil {
			a.log.Warn().Err(err).Int64("ticket_id", tid).Msg("automatic message refused")
		}
	})
}

// ticketFuture sends a system command (or, with cmd nil, a state query) to a ticket.
func (a *connActor) ticketFuture(ctx actor.Context, tid engine.ID, cmd engine.TicketCommand) (*actor.Future, error) {
	return a.ticketFutureAs(ctx, tid, nil, cmd)
}

func ticketResult(res any, ferr error) (TicketReply, error) {
	if ferr != nil {
		return TicketReply{}, engine.Wrap(engine.ErrUnavailable, ferr)
	}
	reply, ok := res.(*wire.Reply)
	if !ok {
		return TicketReply{}, engine.Wrap(engine.ErrInternal, fmt.Errorf("ticket replied %T", res))
	}
	body, err := ReplyResult(reply)
	if err != nil {
		return TicketReply{}, err
	}
	var r TicketReply
	if err := json.Unmarshal(body, &r); err != nil {
		return TicketReply{}, engine.Wrap(engine.ErrInternal, err)
	}
	return r, nil
}

// backoff is the delay before retry attempt n (1-based).
func backoff(base time.Duration, n int) time.Duration {
	d := base << (n - 1)
	if d > time.Minute || d <= 0 {
		d = time.Minute
	}
	return d
}
