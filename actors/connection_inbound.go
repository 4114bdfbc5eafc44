package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"atende/actors/wire"
	"atende/engine"
)

// inboundMsg carries one channel message from the sink into the actor; the actor
// answers the sink (nil or an error) once the message is durable in its ticket.
type inboundMsg struct{ m engine.InboundMessage }

// inboundJob is one inbound message on its way to a ticket.
type inboundJob struct {
	m         engine.InboundMessage
	contactID engine.ID
	messageID engine.ID
	attempt   int
	opened    engine.ID // the ticket this job opened: greeted once the message is in
	where     stored    // the locator's answer, when already asked (welcome)
}

func (a *connActor) onInbound(ctx actor.Context, msg *inboundMsg) {
	if !a.loaded {
		a.answer(ctx, engine.Wrap(engine.ErrWappNotInitialized, fmt.Errorf("connection %d not loaded", a.id)))
		return
	}
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
	if _, known := a.contacts[m.From.Number]; !known || a.resolving[m.From.Number] != nil {
		a.welcome(ctx, msg)
		return
	}
	contactID, err := a.contactFor(m.From)
	if err != nil {
		a.answer(ctx, err)
		return
	}
	mid, err := a.nextID("message")
	if err != nil {
		a.answer(ctx, err)
		return
	}
	a.route(ctx, &inboundJob{m: m, contactID: contactID, messageID: mid})
}

// route sends the job to the contact's current ticket, opening one when there is
// none, and answers the sink when the ticket has recorded it. A ticket that refuses
// (resolved, deleted, moved to another connection) makes way for a new ticket.
func (a *connActor) route(ctx actor.Context, job *inboundJob) {
	tid, err := a.currentTicket(job.contactID)
	if err != nil {
		a.answer(ctx, err)
		return
	}
	m := job.m
	// A message the provider delivers again after its ticket closed or was deleted
	// (or after the contact's next ticket opened) is not stored twice: before opening a
	// ticket, and for a message older than the current ticket, the durable record is
	// asked whether it already holds the provider id.
	// The answer is kept for this path: if the ticket refuses, it tells, without
	// asking again, whether the message is stored on any ticket.
	where := job.where
	if tid == 0 || (job.opened != tid && a.mayBeLate(job.contactID, tid, m.At)) {
		if !where.asked {
			if where, err = a.storedAt(m.ProviderID); err != nil {
				a.answer(ctx, err)
				return
			}
		}
		if a.elsewhere(m.ProviderID, where, tid) {
			a.answer(ctx, nil)
			return
		}
	}
	if tid == 0 {
		a.openThenRoute(ctx, job, 0)
		return
	}
	var cmd engine.TicketCommand = engine.ReceiveMessage{MessageID: job.messageID, ProviderID: m.ProviderID,
		Body: m.Body, MediaType: m.MediaType, MediaURL: m.MediaPath, QuotedID: a.quotedID(m.QuotedProviderID)}
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
			if !r.Ticket.CreatedAt.IsZero() && a.tickets[job.contactID] == tid {
				a.since[job.contactID] = opened{ticket: tid, at: r.Ticket.CreatedAt}
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
			return
		}
		code := engine.CodeOf(err)
		if (code == engine.ErrInvalidTransition || code == engine.ErrNoTicketFound) && job.attempt < 2 {
			job.attempt++
			// Only the first refusal of a ticket opens its successor; later ones find
			// the cache already moved on.
			if a.tickets[job.contactID] == tid {
				if !where.asked {
					var err error
					if where, err = a.storedAt(m.ProviderID); err != nil {
						a.answer(ctx, err)
						return
					}
				}
				if a.elsewhere(m.ProviderID, where, 0) {
					a.answer(ctx, nil)
					return
				}
				a.openThenRoute(ctx, job, tid)
				return
			}
			a.route(ctx, job)
			return
		}
		a.answer(ctx, err)
	})
}

func (a *connActor) currentTicket(contactID engine.ID) (engine.ID, error) {
	if tid, ok := a.tickets[contactID]; ok {
		return tid, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	tid, err := a.cfg.Guard.Current(ctx, a.id, contactID)
	if err != nil {
		return 0, engine.Wrap(engine.ErrUnavailable, err)
	}
	a.tickets[contactID] = tid
	return tid, nil
}

func (a *connActor) contactFor(from engine.ChannelContact) (engine.ID, error) {
	if id, ok := a.contacts[from.Number]; ok {
		return id, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	c, _, err := a.cfg.Contacts.FindOrCreateByNumber(ctx, a.conn.CompanyID, from.Number, from.Name)
	if err != nil {
		return 0, err
	}
	a.contacts[from.Number] = c.ID
	a.numbers[c.ID] = from.Number
	return c.ID, nil
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
// first: it may bring the ticket.
func (a *connActor) openThenRoute(ctx actor.Context, job *inboundJob, prev engine.ID) {
	num := job.m.From.Number
	if f := a.resolving[num]; f != nil {
		ctx.ReenterAfter(f, func(any, error) { a.route(ctx, job) })
		return
	}
	spec := openSpec{companyID: a.conn.CompanyID, connID: a.id, channel: a.conn.Channel, contactID: job.contactID,
		prev: prev, queueID: a.singleQueue(), status: engine.StatusPending}
	system, timeout := ctx.ActorSystem(), a.cfg.CallTimeout
	var f *actor.Future
	f = offActor(ctx, a.cfg.Routines, 3*timeout, func() openedOff {
		c, cancel := context.WithTimeout(context.Background(), 2*timeout)
		defer cancel()
		o, err := a.claimAndOpen(c, system, spec)
		return openedOff{o, err}
	}, func(r openedOff, err error) {
		if a.resolving[num] == f {
			delete(a.resolving, num)
		}
		if r.o.ticket != 0 {
			a.tickets[job.contactID] = r.o.ticket
		}
		if r.o.claimed {
			a.since[job.contactID] = opened{ticket: r.o.ticket, at: r.o.at}
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
		job.opened = r.o.ticket
		a.route(ctx, job)
	})
	if f != nil {
		a.resolving[num] = f
	}
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

func (a *connActor) ticketFutureAs(ctx actor.Context, tid engine.ID, p *engine.Principal, cmd engine.TicketCommand) (*actor.Future, error) {
	pid := cluster.GetCluster(ctx.ActorSystem()).Get(strconv.FormatInt(tid, 10), KindTicket)
	if pid == nil {
		return nil, engine.Wrap(engine.ErrUnavailable, fmt.Errorf("no activation for ticket %d", tid))
	}
	w, err := ticketWireCommand(tid, p, a.id, a.conn.CompanyID, cmd)
	if err != nil {
		return nil, err
	}
	return ctx.RequestFuture(pid, w, a.cfg.CallTimeout), nil
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
