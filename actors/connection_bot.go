package actors

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"

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

// botLevels reads the tenant's bot levels (none without a store).
func (a *connActor) botLevels(companyID engine.ID) ([]engine.BotLevel, error) {
	if a.cfg.Bots == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	levels, err := a.cfg.Bots.List(ctx, companyID)
	if err != nil {
		return nil, engine.Wrap(engine.ErrUnavailable, err)
	}
	return levels, nil
}

// singleQueue is the queue a ticket the connection opens itself starts in: the
// connection's only queue — unless the tenant has a reception menu, which then routes
// the customer (0: no queue yet). A failed read of the levels keeps the only queue, so
// that the customer still reaches attendants.
func (a *connActor) singleQueue() engine.ID {
	if len(a.conn.Queues) != 1 {
		return 0
	}
	if levels, err := a.botLevels(a.conn.CompanyID); err != nil {
		a.log.Warn().Err(err).Msg("bot: read levels")
	} else if len(levels) > 0 {
		return 0
	}
	return a.conn.Queues[0].ID
}

// botQueue reads a queue for its greeting, hours and absence message: from the
// store when there is one, else the connection's own copy of its queues.
func (a *connActor) botQueue(companyID, id engine.ID) (engine.Queue, bool) {
	if a.cfg.Queues != nil {
		ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
		defer cancel()
		q, err := a.cfg.Queues.Get(ctx, companyID, id)
		if err == nil {
			return q, true
		}
		if engine.CodeOf(err) != engine.ErrNoQueueFound {
			a.log.Warn().Err(err).Int64("queue_id", id).Msg("bot: read queue")
		}
		return engine.Queue{}, false
	}
	for _, q := range a.conn.Queues {
		if q.ID == id {
			return q, true
		}
	}
	return engine.Queue{}, false
}

// botZone is the tenant's time zone, for business hours.
func (a *connActor) botZone(companyID engine.ID) *time.Location {
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	loc, err := engine.TenantZone(ctx, a.cfg.Settings, companyID)
	if err != nil {
		a.log.Warn().Err(err).Msg("bot: tenant zone")
		return engine.LoadZone(engine.TenantTimeZone)
	}
	return loc
}

// automate answers customer message m, recorded on ticket st, with what
// chooseAutomation picks, then calls done with the outcome (nil when there was
// nothing to say or the answer is durable).
func (a *connActor) automate(ctx actor.Context, st engine.TicketState, m engine.InboundMessage, done func(error)) {
	if a.chooseAutomation(st) != autoMenu {
		done(nil)
		return
	}
	levels, err := a.botLevels(st.CompanyID)
	if err != nil {
		done(err)
		return
	}
	in := engine.BotInput{Ticket: st, ProviderID: m.ProviderID, Body: m.Body, MediaType: m.MediaType,
		First: st.BotReplyTo == "", Levels: levels, QueueMenu: engine.QueueMenuLevels(a.conn.Queues),
		Greeting: a.conn.GreetingMessage, Now: a.cfg.Clock.Now(),
		QueueOf: func(id engine.ID) (engine.Queue, bool) { return a.botQueue(st.CompanyID, id) }}
	in.Zone = a.botZone(st.CompanyID)
	// Tickets do not record that they are a group's; the channel's sender does.
	in.Ticket.IsGroup = st.IsGroup || m.From.IsGroup
	step, ok := engine.DecideBot(in)
	if !ok {
		done(nil)
		return
	}
	if in.First && step.Level == 0 && a.conn.GreetingMedia != "" {
		// The connection's greeting image carries the greeting (and menu) as caption.
		step.MediaType, step.MediaURL = engine.MediaImage, a.conn.GreetingMedia
	}
	if step.Body != "" || step.MediaURL != "" {
		if step.MessageID, err = a.nextID("message"); err != nil {
			done(err)
			return
		}
	}
	f, err := a.ticketFuture(ctx, st.ID, step)
	if err != nil {
		done(err)
		return
	}
	ctx.ReenterAfter(f, func(res any, ferr error) {
		if _, err := ticketResult(res, ferr); err != nil {
			a.log.Warn().Err(err).Int64("ticket_id", st.ID).Msg("bot step refused")
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
