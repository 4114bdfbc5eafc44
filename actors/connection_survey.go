package actors

import (
	"context"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"atende/engine"
)

// The satisfaction survey (spec sections 3 and 9). When a ticket of a queue with the
// nps flag is resolved, the farewell is followed by the queue's rating question
// (engine.QueueRatingQuestion: its own text, else the default; the
// ticket's AskRating records it, once). The customer's next message, if it is "1",
// "2" or "3", is taken by the closed ticket as its rating (engine.DecideTicket records
// a TicketRated, at most once per ticket, which the appraisals projection adds to the
// contact); the queue's encouraging message then thanks the customer. Any other
// message is refused by the closed ticket and opens a new ticket, as it did before
// the survey: the question is not repeated.

// surveyQueue reads the queue of a resolved ticket; ok is false when there is no
// survey to run (no store, no queue, the flag off, or the queue unreadable).
func (a *connActor) surveyQueue(companyID, queueID engine.ID) (engine.Queue, bool) {
	if a.cfg.Queues == nil || queueID == 0 {
		return engine.Queue{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	q, err := a.cfg.Queues.Get(ctx, companyID, queueID)
	if err != nil {
		if engine.CodeOf(err) != engine.ErrNoQueueFound {
			a.log.Warn().Err(err).Int64("queue_id", queueID).Msg("survey: read queue")
		}
		return engine.Queue{}, false
	}
	return q, q.NPS
}

// askRating sends the rating question of a resolved ticket whose queue asks for it.
// Groups are not surveyed: one answer could not stand for the group.
func (a *connActor) askRating(ctx actor.Context, req DeliverRequest) {
	if req.IsGroup || req.TicketID == 0 {
		return
	}
	q, ok := a.surveyQueue(a.conn.CompanyID, req.QueueID)
	if !ok {
		return
	}
	mid, err := a.nextID("message")
	if err != nil {
		a.log.Warn().Err(err).Int64("ticket_id", req.TicketID).Msg("survey: no message id")
		return
	}
	f, err := a.ticketFuture(ctx, req.TicketID, engine.AskRating{MessageID: mid, Body: engine.QueueRatingQuestion(q)})
	if err != nil {
		a.log.Warn().Err(err).Int64("ticket_id", req.TicketID).Msg("survey: ask")
		return
	}
	ctx.ReenterAfter(f, func(res any, ferr error) {
		if _, err := ticketResult(res, ferr); err != nil {
			a.log.Warn().Err(err).Int64("ticket_id", req.TicketID).Msg("survey: question refused")
		}
	})
}

// thankRating sends the queue's encouraging message after a rating.
func (a *connActor) thankRating(ctx actor.Context, tid, companyID, queueID engine.ID) {
	q, ok := a.surveyQueue(companyID, queueID)
	if !ok || strings.TrimSpace(q.EncouragingMessage) == "" {
		return
	}
	a.sendAutomatic(ctx, tid, q.EncouragingMessage, "")
}
