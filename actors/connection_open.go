package actors

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"atende/engine"
)

// A ticket a staff member or a due schedule asks for (CmdConnectionOpenTicket) takes
// the same round trips as a newcomer's: the contact, the guard, the current ticket's
// state, the new ticket's id, the guard's claim and the opening in the journal. Made
// by the actor itself they would queue every other open and every customer's message
// of the connection behind them (a thousand schedules falling due at once to new
// customers waited seconds for each other). They run in a goroutine instead, one per
// number at a time: while an open is in flight its number is in a.resolving, so the
// customer's own messages, and a second open for the same contact, wait for it as
// they wait for a newcomer's resolution — a message routed meanwhile could otherwise
// find the guard naming a ticket whose opening has not committed yet, and open
// another beside it.

// personOpenInput is what the goroutine needs: copied, so that the actor may change
// its own state meanwhile.
type personOpenInput struct {
	req       OpenTicketRequest
	companyID engine.ID
	connID    engine.ID
	channel   string
	queueID   engine.ID // the request's queue, else the connection's only queue (only)
	only      bool
	cur       engine.ID // the contact's current ticket as the actor knows it
	known     bool      // cur is the actor's own memory
	read      bool      // cur is the caller's read of the guard (OpenTicketRequest.Current)
	system    *actor.ActorSystem
}

// personOpen is what the goroutine learned.
type personOpen struct {
	cur     engine.ID // the current ticket it found (the guard's, when unknown)
	ticket  engine.ID // the ticket answered: opened here, or another activation's
	claimed bool      // the guard names ticket because this open claimed it
	at      time.Time
	reply   TicketReply
	err     error
}

// contactNumber is a contact's number read off the actor.
type contactNumber struct {
	number string
	err    error
}

// openForPersonWhenSettled answers CmdConnectionOpenTicket: it learns the contact's
// number (from memory, else from the contact store in a goroutine) and opens.
func (a *connActor) openForPersonWhenSettled(ctx actor.Context, companyID engine.ID, req OpenTicketRequest) {
	if !a.loaded || a.conn.CompanyID != companyID || req.Principal.CompanyID != companyID {
		ctx.Respond(ErrorReply(engine.E(engine.ErrNoWappFound)))
		return
	}
	if num, ok := a.numbers.get(req.ContactID); ok {
		a.openForNumber(ctx, req, num)
		return
	}
	if req.Number != "" {
		a.numbers.set(req.ContactID, req.Number)
		a.openForNumber(ctx, req, req.Number)
		return
	}
	contacts, timeout := a.cfg.Contacts, a.cfg.CallTimeout
	offActor(ctx, a.cfg.Routines, 2*timeout, func() contactNumber {
		c, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		contact, err := contacts.Get(c, companyID, req.ContactID)
		return contactNumber{number: contact.Number, err: err}
	}, func(r contactNumber, err error) {
		if err == nil {
			err = r.err
		}
		if err != nil {
			ctx.Respond(ErrorReply(err))
			return
		}
		a.numbers.set(req.ContactID, r.number)
		a.openForNumber(ctx, req, r.number)
	})
}

// openForNumber opens the ticket of req's contact, whose number is num, once no
// resolution or other open of that number is in flight. A connection actor whose
// customers are spread over inbound partitions forwards it to the number's.
func (a *connActor) openForNumber(ctx actor.Context, req OpenTicketRequest, num string) {
	if n := a.partitioned(ctx.ActorSystem()); n != nil {
		req.Number = num
		a.forwardOpen(ctx, n, req)
		return
	}
	if a.afterResolving(ctx, num, func() { a.openForNumber(ctx, req, num) }) {
		return
	}
	in := personOpenInput{req: req, companyID: a.conn.CompanyID, connID: a.id, channel: a.conn.Channel,
		queueID: req.QueueID, system: ctx.ActorSystem()}
	if in.queueID == 0 {
		in.queueID, in.only = a.onlyQueue(), true
	}
	in.cur, in.known = a.tickets.get(req.ContactID)
	if !in.known && req.CurrentRead {
		in.cur, in.read = req.Current, true
	}
	resolveOff(a, ctx, num, 3*a.cfg.CallTimeout, func() personOpen { return a.openForPerson(in) },
		func(out personOpen, err error) {
			if err != nil {
				ctx.Respond(ErrorReply(err))
				return
			}
			a.settlePersonOpen(ctx, req, in, out)
		})
}

// settlePersonOpen records, in the actor, what an open learned, and answers it.
func (a *connActor) settlePersonOpen(ctx actor.Context, req OpenTicketRequest, in personOpenInput, out personOpen) {
	contactID := req.ContactID
	if !in.known && out.cur != 0 {
		if _, meanwhile := a.tickets.get(contactID); !meanwhile {
			a.tickets.set(contactID, out.cur)
		}
	}
	if out.ticket != 0 {
		a.tickets.set(contactID, out.ticket)
	}
	if out.claimed {
		a.since.set(contactID, opened{ticket: out.ticket, at: out.at})
	}
	if out.err != nil {
		ctx.Respond(ErrorReply(out.err))
		return
	}
	ctx.Respond(a.okReply(out.reply))
}

// openForPerson runs outside the actor: a contact whose current ticket is open or
// pending on this connection is refused with ERR_OTHER_OPEN_TICKET; otherwise a new
// ticket is claimed in the guard (from the current one) and opened in the journal on
// behalf of the requester (claimAndOpen). A claim lost to another activation
// answers that one's ticket.
func (a *connActor) openForPerson(in personOpenInput) personOpen {
	ctx, cancel := context.WithTimeout(context.Background(), 2*a.cfg.CallTimeout)
	defer cancel()
	var out personOpen
	out.cur = in.cur
	if !in.known && !in.read {
		cur, err := a.cfg.Guard.Current(ctx, in.connID, in.req.ContactID)
		if err != nil {
			out.err = engine.Wrap(engine.ErrUnavailable, err)
			return out
		}
		out.cur = cur
	}
	if out.cur != 0 {
		res, err := a.ticketRequest(in.system, in.connID, in.companyID, out.cur, nil, nil)
		switch {
		case err == nil && (res.Ticket.Status == engine.StatusOpen || res.Ticket.Status == engine.StatusPending) &&
			res.Ticket.ConnectionID == in.connID:
			out.err = engine.Wrap(engine.ErrOtherOpenTicket, fmt.Errorf("ticket %d", out.cur))
			return out
		case err != nil && engine.CodeOf(err) != engine.ErrNoTicketFound:
			out.err = err
			return out
		}
	}
	p := in.req.Principal
	o, err := a.claimAndOpen(ctx, in.system, openSpec{companyID: in.companyID, connID: in.connID, channel: in.channel,
		contactID: in.req.ContactID, prev: out.cur, queueID: in.queueID, onlyQueue: in.only, userID: in.req.UserID, status: in.req.Status, by: &p})
	out.claimed, out.at = o.claimed, o.at
	if err != nil {
		out.ticket, out.err = o.ticket, err
		return out
	}
	tid, pos := o.ticket, o.reply.Position
	out.ticket = tid
	res, err := a.ticketRequest(in.system, in.connID, in.companyID, tid, nil, nil)
	if err != nil {
		out.err = err
		return out
	}
	res.Position = pos
	out.reply = res
	return out
}

// openSpec is a ticket to open for a contact of a connection: the queue (0: none),
// the user (0: nobody, as pending), the status, on behalf of by (nil: the system),
// replacing prev, the contact's ticket in the guard as last known (0: none).
type openSpec struct {
	companyID, connID engine.ID
	channel           string
	contactID         engine.ID
	prev              engine.ID
	queueID, userID   engine.ID
	status            string
	by                *engine.Principal
	first             *engine.ReceiveMessage // the customer's message the ticket opens with (nil: none)
	// onlyQueue: queueID is the connection's only queue, which the ticket starts in
	// unless the tenant has a reception menu (startQueue).
	onlyQueue bool
	// greet, with first, makes the opening record the bot's greeting too.
	greet *botGreeting
}

// opening is what claimAndOpen did: ticket is the contact's ticket now — opened here
// when claimed (at the claim's time, with the opening's reply), else another
// activation's or person's, who claimed first.
type opening struct {
	ticket  engine.ID
	claimed bool
	at      time.Time
	reply   TicketReply
}

// claimAndOpen is the one way a connection opens a ticket, for a newcomer's first
// message, a customer whose ticket refused a message, a staff member or a due
// schedule: a new ticket id, the guard's claim for it (from s.prev), then the opening
// in the journal through the ticket actor. Claim first: a ticket opened without the
// claim could stand beside another activation's. A lost claim answers the ticket that
// won, unopened here. If the opening fails after the claim, the guard names a ticket
// that never opened (ticket is set, with the error): the next message finds it
// refusing and opens another. It makes store round trips and waits for the ticket
// actor, so it always runs outside the connection actor, in an offActor goroutine.
func (a *connActor) claimAndOpen(ctx context.Context, system *actor.ActorSystem, s openSpec) (opening, error) {
	var o opening
	reads := botReads{bots: a.cfg.Bots, log: a.log}
	var levels []engine.BotLevel
	var levelsErr error
	if (s.onlyQueue && s.queueID != 0) || (s.greet != nil && s.first != nil) {
		levels, levelsErr = reads.levels(ctx, s.companyID)
	}
	if s.onlyQueue && s.queueID != 0 {
		s.queueID = startQueue(s.queueID, levels, levelsErr, a.log)
	}
	tid, err := newTicketID(ctx, a.cfg.IDs, nodeOf(system))
	if err != nil {
		return o, engine.Wrap(engine.ErrUnavailable, err)
	}
	open := newTicketCommand(tid, s.companyID, s.contactID, s.connID, s.channel, s.queueID, s.userID, s.status,
		a.cfg.Clock.Now())
	open.First = s.first
	if s.greet != nil && s.first != nil && levelsErr == nil {
		// The greeting is decided on the ticket as the opening and its first message
		// will leave it (the same decisions the ticket makes). Without it — nothing
		// to say, or a failed read — the message is answered after the opening, as
		// any other.
		if state, err := engine.DecideTicket(engine.TicketState{}, open, s.greet.in.Now); err == nil {
			g := *s.greet
			g.in.Ticket = engine.FoldTicket(engine.TicketState{}, state)
			g.in.Ticket.IsGroup = g.in.Ticket.IsGroup || s.greet.in.Ticket.IsGroup
			if d := g.decide(ctx, s.companyID, levels); d.err == nil && d.ok {
				open.Greet = &d.step
			}
		}
	}
	ok, now, err := a.cfg.Guard.Swap(ctx, s.companyID, s.connID, s.contactID, s.prev, tid)
	if err != nil {
		return o, engine.Wrap(engine.ErrUnavailable, err)
	}
	if !ok {
		o.ticket = now
		return o, nil
	}
	o.ticket, o.claimed, o.at = tid, true, a.cfg.Clock.Now()
	if a.cfg.afterClaim != nil {
		a.cfg.afterClaim(s.contactID)
	}
	o.reply, err = a.ticketRequest(system, s.connID, s.companyID, tid, s.by, open)
	return o, err
}

// ticketHereTries bounds how many ticket ids newTicketID draws looking for one
// that the cluster places on this node. With three members a draw lands here a
// third of the time: 16 draws all miss once in 650 tickets, and a ticket takes
// three ids on average.
const ticketHereTries = 16

// newTicketID takes the id of a ticket that a connection (or one of its inbound
// partitions) on node n opens. In a cluster it prefers an id whose ticket actor the
// cluster places on n: the customer's messages reach the ticket from the actor that
// routes them, on n, so they need not cross to another node. The ids it passes over
// are left unused — gaps in the numbering, as a restart leaves — and ids still
// increase within a node. With one member, or no node (tests), the first id is
// kept. Where the ticket's actor runs is a hint only: a change of membership moves
// it, and every call still finds it through the cluster.
func newTicketID(ctx context.Context, ids engine.IDAllocator, n *Node) (engine.ID, error) {
	for i := 0; ; i++ {
		tid, err := ids.Next(ctx, "ticket")
		if err != nil || n == nil || i == ticketHereTries-1 {
			return tid, err
		}
		if _, local := n.hostOf(strconv.FormatInt(tid, 10), KindTicket); local {
			return tid, nil
		}
	}
}

// ticketRequest sends a command (or, with cmd nil, a state query) to ticket tid from
// outside the actor — on behalf of p, nil: the system — and waits for its answer.
func (a *connActor) ticketRequest(system *actor.ActorSystem, connID, companyID, tid engine.ID, p *engine.Principal, cmd engine.TicketCommand) (TicketReply, error) {
	w, err := ticketWireCommand(tid, p, connID, companyID, cmd)
	if err != nil {
		return TicketReply{}, err
	}
	pid := cluster.GetCluster(system).Get(strconv.FormatInt(tid, 10), KindTicket)
	if pid == nil {
		return TicketReply{}, engine.Wrap(engine.ErrUnavailable, fmt.Errorf("no activation for ticket %d", tid))
	}
	res, ferr := system.Root.RequestFuture(pid, w, a.cfg.CallTimeout).Result()
	return ticketResult(res, ferr)
}
