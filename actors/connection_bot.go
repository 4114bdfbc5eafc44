package actors

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"atende/engine"
)

// The reception bot on the inbound path (engine/bot_decide.go decides, docs/bots.md
// explains). After a customer message is durable in its ticket, chooseAutomation
// picks what answers it without a person; the menu bot decides a BotStep from the
// ticket's state and the tenant's bot levels, and the ticket records it — the
// automatic message, any move to a queue or attendant, and the new menu level — in
// one journal append, at most once per customer message (its provider id is the
// key). The sink is answered only after that, so a crash in between makes the
// channel deliver the message again; the ticket knows the message already, and the
// bot answers it then, from the same state, as it would have.

// automation is what answers a customer message without a person.
type automation int

const (
	autoNothing automation = iota
	autoMenu               // the reception menu, greeting and absence messages
	// A Bizflow flow chosen for the connection or queue would be a third answer here.
)

// chooseAutomation is the seam of the inbound path that decides "menu vs flow vs
// nothing" for a customer message the ticket st has recorded: a Bizflow engine
// plugs in here, returning its own automation for the connections or queues that
// have a flow, before the menu. Outgoing echoes and closed tickets (the rating
// answer) never reach it.
func (a *connActor) chooseAutomation(st engine.TicketState) automation {
	if st.Status != engine.StatusPending || st.Deleted {
		return autoNothing
	}
	return autoMenu
}

// botReads are the stores the reception bot reads, with the connection's own copy of
// its queues: copied out of the actor, so that the reads run outside it.
type botReads struct {
	bots     engine.BotStore
	queues   engine.QueueStore
	settings engine.SettingStore
	own      []engine.Queue
	log      zerolog.Logger
}

func (a *connActor) botReads() botReads {
	return botReads{bots: a.cfg.Bots, queues: a.cfg.Queues, settings: a.cfg.Settings, own: a.conn.Queues, log: a.log}
}

// levels reads the tenant's bot levels (none without a store).
func (r botReads) levels(ctx context.Context, companyID engine.ID) ([]engine.BotLevel, error) {
	if r.bots == nil {
		return nil, nil
	}
	levels, err := r.bots.List(ctx, companyID)
	if err != nil {
		return nil, engine.Wrap(engine.ErrUnavailable, err)
	}
	return levels, nil
}

// onlyQueue is the connection's only queue (0: none, or several).
func (a *connActor) onlyQueue() engine.ID {
	if len(a.conn.Queues) != 1 {
		return 0
	}
	return a.conn.Queues[0].ID
}

// startQueue is the queue a ticket the connection opens itself starts in: only, the
// connection's only queue — unless the tenant has a reception menu (levels, read with
// error err), which then routes the customer (0: no queue yet). A failed read of the
// levels keeps the only queue, so that the customer still reaches attendants.
func startQueue(only engine.ID, levels []engine.BotLevel, err error, log zerolog.Logger) engine.ID {
	if err != nil {
		log.Warn().Err(err).Msg("bot: read levels")
		return only
	}
	if len(levels) > 0 {
		return 0
	}
	return only
}

// queue reads a queue for its greeting, hours and absence message: from the store
// when there is one, else the connection's own copy of its queues.
func (r botReads) queue(ctx context.Context, companyID, id engine.ID) (engine.Queue, bool) {
	if r.queues != nil {
		q, err := r.queues.Get(ctx, companyID, id)
		if err == nil {
			return q, true
		}
		if engine.CodeOf(err) != engine.ErrNoQueueFound {
			r.log.Warn().Err(err).Int64("queue_id", id).Msg("bot: read queue")
		}
		return engine.Queue{}, false
	}
	for _, q := range r.own {
		if q.ID == id {
			return q, true
		}
	}
	return engine.Queue{}, false
}

// zone is the tenant's time zone, for business hours.
func (r botReads) zone(ctx context.Context, companyID engine.ID) *time.Location {
	loc, err := engine.TenantZone(ctx, r.settings, companyID)
	if err != nil {
		r.log.Warn().Err(err).Msg("bot: tenant zone")
		return engine.LoadZone(engine.TenantTimeZone)
	}
	return loc
}

// botDecision is the bot's step for a customer message, decided outside the actor.
type botDecision struct {
	step engine.BotStep
	ok   bool // there is a step to record
	err  error
}

// botGreeting is what the bot needs, besides its reads, to answer a customer
// message outside the actor: its input as the actor knows it (the ticket's state, the
// connection's queues and greeting, the time), the greeting image, the stores and the
// id allocator.
type botGreeting struct {
	in    engine.BotInput
	media string
	reads botReads
	ids   engine.IDAllocator
}

func (a *connActor) botGreeting(in engine.BotInput) botGreeting {
	return botGreeting{in: in, media: a.conn.GreetingMedia, reads: a.botReads(), ids: a.cfg.IDs}
}

// decide reads the tenant's zone and, as DecideBot asks, its queues, then decides the
// bot's step on the tenant's levels. It runs outside the actor.
func (g botGreeting) decide(ctx context.Context, companyID engine.ID, levels []engine.BotLevel) botDecision {
	in := g.in
	in.Levels = levels
	in.Zone = g.reads.zone(ctx, companyID)
	in.QueueOf = func(id engine.ID) (engine.Queue, bool) { return g.reads.queue(ctx, companyID, id) }
	step, ok := engine.DecideBot(in)
	if !ok {
		return botDecision{}
	}
	if in.First && step.Level == 0 && g.media != "" {
		// The connection's greeting image carries the greeting (and menu) as caption.
		step.MediaType, step.MediaURL = engine.MediaImage, g.media
	}
	if step.Body != "" || step.MediaURL != "" {
		var err error
		if step.MessageID, err = g.ids.Next(ctx, "message"); err != nil {
			return botDecision{err: engine.Wrap(engine.ErrUnavailable, err)}
		}
	}
	return botDecision{step: step, ok: true}
}

// greetOnOpen is the bot's part in opening a ticket for customer message m, when
// nothing but the reception menu would answer m — no flow of the connection, no
// intent routing: the opening then records the greeting along with the message
// (engine.OpenTicket.Greet). nil otherwise, and for a message from our own phone.
func (a *connActor) greetOnOpen(m engine.InboundMessage) *botGreeting {
	group := m.From.IsGroup
	if m.FromMe || (!group && a.flowsHere()) || (a.cfg.Intents != nil && len(a.conn.Queues) >= 2 && !group) {
		return nil
	}
	in := engine.BotInput{ProviderID: m.ProviderID, Body: m.Body, MediaType: m.MediaType, First: true,
		QueueMenu: engine.QueueMenuLevels(a.conn.Queues), Greeting: a.conn.GreetingMessage, Now: a.cfg.Clock.Now()}
	in.Ticket.IsGroup = group
	g := a.botGreeting(in)
	return &g
}

// automate answers customer message m, recorded on ticket st, with what
// chooseAutomation picks, then calls done with the outcome (nil when there was
// nothing to say or the answer is durable). The bot's reads (its levels, the tenant's
// zone, the queues) and its decision run outside the actor; a step decided on a
// state a later message has overtaken is a no-op for the ticket (engine.BotStep).
func (a *connActor) automate(ctx actor.Context, st engine.TicketState, m engine.InboundMessage, done func(error)) {
	if a.chooseAutomation(st) != autoMenu {
		done(nil)
		return
	}
	in := engine.BotInput{Ticket: st, ProviderID: m.ProviderID, Body: m.Body, MediaType: m.MediaType,
		First: st.BotReplyTo == "", QueueMenu: engine.QueueMenuLevels(a.conn.Queues),
		Greeting: a.conn.GreetingMessage, Now: a.cfg.Clock.Now()}
	// Tickets do not record that they are a group's; the channel's sender does.
	in.Ticket.IsGroup = st.IsGroup || m.From.IsGroup
	if st.BotReplyTo == m.ProviderID {
		// The bot answered this message already (the opening carried its greeting,
		// or a redelivery): DecideBot would say nothing.
		done(nil)
		return
	}
	g := a.botGreeting(in)
	timeout := a.cfg.CallTimeout
	offActor(ctx, a.cfg.Routines, 2*timeout, func() botDecision {
		c, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		levels, err := g.reads.levels(c, st.CompanyID)
		if err != nil {
			return botDecision{err: err}
		}
		return g.decide(c, st.CompanyID, levels)
	}, func(d botDecision, err error) {
		if err == nil {
			err = d.err
		}
		if err != nil || !d.ok {
			done(err)
			return
		}
		a.recordBotStep(ctx, st.ID, d.step, done)
	})
}

// recordBotStep hands the bot's step to ticket tid, then calls done.
func (a *connActor) recordBotStep(ctx actor.Context, tid engine.ID, step engine.BotStep, done func(error)) {
	f, err := a.ticketFuture(ctx, tid, step)
	if err != nil {
		done(err)
		return
	}
	ctx.ReenterAfter(f, func(res any, ferr error) {
		if _, err := ticketResult(res, ferr); err != nil {
			a.log.Warn().Err(err).Int64("ticket_id", tid).Msg("bot step refused")
			if engine.CodeOf(err) == engine.ErrUnavailable {
				// Worth a redelivery: the step is decided again from the same state.
				done(err)
				return
			}
			// A refusal (an oversized menu, say) would be refused again on every
			// redelivery: the customer's message stands without an answer.
		}
		done(nil)
	})
}
