package actors

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"

	"atende/engine"
)

// intentResult is what the intent router answered, back on the actor.
type intentResult struct {
	queueID engine.ID
	ok      bool
}

// routeByIntent starts the NLP routing of a new ticket's first message (docs/ai.md):
// on a connection with several queues, with cfg.Intents set, for a customer (not a
// group). The router runs off the actor — a provider call takes seconds, and other
// customers' messages must not wait behind it. A match moves the ticket to the
// intent's queue (the system transfer the menu makes) and greets without the menu;
// no match, or a failure, runs fallback (the reception menu, as without a router).
// false: not started, the caller answers as usual.
func (a *connActor) routeByIntent(ctx actor.Context, st engine.TicketState, m engine.InboundMessage, fallback func()) bool {
	if a.cfg.Intents == nil || len(a.conn.Queues) < 2 || st.QueueID != 0 || st.IsGroup || m.From.IsGroup {
		return false
	}
	router := a.cfg.Intents
	company, text, timeout := a.conn.CompanyID, m.Body, 2*a.cfg.CallTimeout
	tid := st.ID
	f := offActor(ctx, a.cfg.Routines, 3*a.cfg.CallTimeout, func() intentResult {
		c, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		q, ok, err := router.IntentQueue(c, company, text)
		return intentResult{queueID: q, ok: ok && err == nil}
	}, func(r intentResult, err error) {
		if err == errStopping {
			return // not started: the caller answers as usual
		}
		if err != nil || !r.ok || !a.ownQueue(r.queueID) {
			fallback()
			return
		}
		tf, err := a.ticketFuture(ctx, tid, engine.Transfer{QueueID: r.queueID})
		if err != nil {
			a.log.Warn().Err(err).Int64("ticket_id", tid).Msg("intent routing")
			fallback()
			return
		}
		ctx.ReenterAfter(tf, func(res any, ferr error) {
			if _, err := ticketResult(res, ferr); err != nil {
				a.log.Warn().Err(err).Int64("ticket_id", tid).Int64("queue_id", r.queueID).Msg("intent routing refused")
				fallback()
				return
			}
			if a.conn.GreetingMessage != "" || a.conn.GreetingMedia != "" {
				a.sendAutomatic(ctx, tid, a.conn.GreetingMessage, a.conn.GreetingMedia)
			}
		})
	})
	return f != nil
}

// ownQueue: q is one of the connection's queues (an intent may name a queue the
// connection does not serve; the menu then decides).
func (a *connActor) ownQueue(q engine.ID) bool {
	for _, cq := range a.conn.Queues {
		if cq.ID == q {
			return true
		}
	}
	return false
}
