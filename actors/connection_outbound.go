package actors

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"atende/engine"
)

type sendResult struct {
	gen        int
	req        DeliverRequest
	attempt    int
	to         string // the recipient: its lane
	providerID string
	err        error
}

type retryDeliver struct {
	req     DeliverRequest
	attempt int
	to      string // set when the send holds its recipient's lane meanwhile
}

// deliver hands one outbound message to the channel, at most once per message id
// for this activation; the send runs in a tracked goroutine and its result comes back
// as a sendResult. Sends to one recipient go one at a time, in the order they were
// handed over (the recipient's lane): a reply never overtakes the message before it,
// not even while that message waits to be retried after a temporary failure (it
// keeps the lane until it is sent, refused for good or given up).
func (a *connActor) deliver(ctx actor.Context, req DeliverRequest, attempt int) {
	if attempt == 0 && !a.out.admit(req.MessageID) {
		return
	}
	a.send(ctx, req, attempt)
}

// send puts an admitted message in its recipient's lane, once the channel runs and
// the recipient's number is known.
func (a *connActor) send(ctx actor.Context, req DeliverRequest, attempt int) {
	if a.channel == nil {
		a.scheduleRetry(ctx, req, attempt, errors.New("channel not running"))
		return
	}
	to, known := a.numbers.get(req.ContactID)
	if !known {
		a.learnNumber(ctx, req.ContactID, func(err error) {
			if err != nil {
				a.scheduleRetry(ctx, req, attempt, err)
				return
			}
			a.send(ctx, req, attempt)
		})
		return
	}
	if a.out.enter(to, queuedSend{req: req, attempt: attempt}) {
		a.launch(ctx, req, attempt, to)
	}
}

// learnNumber reads the number of a contact the actor does not know (a reply after
// an activation, a message from the outbox) outside the actor, then runs then inside
// it. Deliveries to the same contact meanwhile wait for the same read, and so enter
// the recipient's lane in the order they were handed over.
func (a *connActor) learnNumber(ctx actor.Context, contactID engine.ID, then func(error)) {
	if f := a.learning[contactID]; f != nil {
		ctx.ReenterAfter(f, func(any, error) {
			if _, known := a.numbers.get(contactID); known {
				then(nil)
				return
			}
			a.learnNumber(ctx, contactID, then)
		})
		return
	}
	contacts, companyID, timeout := a.cfg.Contacts, a.conn.CompanyID, a.cfg.CallTimeout
	var f *actor.Future
	f = offActor(ctx, a.cfg.Routines, 2*timeout, func() contactNumber {
		c, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		contact, err := contacts.Get(c, companyID, contactID)
		return contactNumber{number: contact.Number, err: err}
	}, func(r contactNumber, err error) {
		if a.learning[contactID] == f {
			delete(a.learning, contactID)
		}
		if err == nil {
			err = r.err
		}
		if err == nil {
			a.numbers.set(contactID, r.number)
			a.contacts.set(r.number, contactID)
		}
		then(err)
	})
	if f != nil {
		a.learning[contactID] = f
	}
}

// nextInLane starts the send waiting first in recipient to's lane, or frees the lane.
func (a *connActor) nextInLane(ctx actor.Context, to string) {
	for {
		next, ok := a.out.next(to)
		if !ok {
			return
		}
		if c := next.campaign; c != nil {
			if a.channel != nil {
				a.launchCampaign(ctx, c)
				return
			}
			a.out.settleCampaign(c.m.MessageID, "", false)
			a.answerCampaign(ctx, c, campaignDone{}, engine.Wrap(engine.ErrUnavailable,
				fmt.Errorf("connection %d: channel not running", a.id)))
			continue
		}
		if a.channel != nil {
			a.launch(ctx, next.req, next.attempt, to)
			return
		}
		a.scheduleRetry(ctx, next.req, next.attempt, errors.New("channel not running"))
	}
}

// launch runs one send in a tracked goroutine; its result comes back as a sendResult.
func (a *connActor) launch(ctx actor.Context, req DeliverRequest, attempt int, to string) {
	out := engine.OutboundMessage{MessageID: req.MessageID, To: to, Body: req.Body, MediaType: req.MediaType,
		MediaPath: req.MediaURL, QuotedProviderID: a.out.index.providerOf(req.QuotedID)}
	ch, gen, self, system, timeout := a.channel, a.gen, ctx.Self(), ctx.ActorSystem(), a.cfg.CallTimeout
	// On a channel that cannot de-duplicate a re-send the attempt is durable before
	// Send is called, so a later activation knows the outcome may have been lost.
	var attempts engine.SendAttemptLog
	if !a.idempotent {
		attempts = a.cfg.Attempts
	}
	connID, clock, log := a.id, a.cfg.Clock, a.log
	started := a.cfg.Routines.Go(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 4*timeout)
		defer cancel()
		if attempts != nil {
			if err := attempts.RecordAttempt(sctx, connID, out.MessageID, clock.Now()); err != nil {
				// Not sent: retried like a temporary failure.
				system.Root.Send(self, &sendResult{gen: gen, req: req, attempt: attempt, to: to, err: engine.Wrap(engine.ErrUnavailable, err)})
				return
			}
		}
		pid, err := ch.Send(sctx, out)
		if attempts != nil && err != nil && errors.Is(err, engine.ErrChannelTemporary) {
			// The provider did not take it: a re-send after a restart is safe. If
			// this fails the row stays and a restart fails the message instead. A
			// context of its own: Send may have used sctx up.
			fctx, fcancel := context.WithTimeout(context.Background(), timeout)
			defer fcancel()
			if ferr := attempts.ForgetAttempt(fctx, connID, out.MessageID); ferr != nil {
				log.Warn().Err(ferr).Int64("message_id", out.MessageID).Msg("forget send attempt")
			}
		}
		system.Root.Send(self, &sendResult{gen: gen, req: req, attempt: attempt, to: to, providerID: pid, err: err})
	})
	if !started { // shutting down: no result will come to free the lane
		a.nextInLane(ctx, to)
	}
}

// relaunch retries a send that kept its lane: again once the channel runs.
func (a *connActor) relaunch(ctx actor.Context, req DeliverRequest, attempt int, to string) {
	if a.channel == nil {
		a.retryInLane(ctx, req, attempt, to, errors.New("channel not running"))
		return
	}
	a.launch(ctx, req, attempt, to)
}

func (a *connActor) onSendResult(ctx actor.Context, r *sendResult) {
	log := a.log.With().Int64("ticket_id", r.req.TicketID).Int64("message_id", r.req.MessageID).Logger()
	if r.err != nil {
		var e *engine.Error
		temporary := errors.Is(r.err, engine.ErrChannelTemporary) || !errors.As(r.err, &e) || e.Code == engine.ErrUnavailable
		if temporary {
			a.retryInLane(ctx, r.req, r.attempt, r.to, r.err)
			return
		}
		a.out.settle(r.req.MessageID)
		a.nextInLane(ctx, r.to)
		log.Error().Err(r.err).Msg("send refused by the channel: message failed")
		a.recordFailure(ctx, r.req, r.err)
		return
	}
	a.out.settle(r.req.MessageID)
	a.nextInLane(ctx, r.to)
	a.out.index.add(r.providerID, outRef{ticket: r.req.TicketID, message: r.req.MessageID})
	f, err := a.ticketFuture(ctx, r.req.TicketID, engine.AckMessage{MessageID: r.req.MessageID, Ack: engine.AckSent,
		ProviderID: r.providerID})
	if err != nil {
		log.Warn().Err(err).Msg("ack sent")
		return
	}
	ctx.ReenterAfter(f, func(res any, ferr error) {
		if _, err := ticketResult(res, ferr); err != nil {
			log.Warn().Err(err).Msg("ack sent refused")
		}
	})
}

// scheduleRetry sends req again after a backoff, through deliver (it holds no lane).
func (a *connActor) scheduleRetry(ctx actor.Context, req DeliverRequest, attempt int, cause error) {
	a.retryInLane(ctx, req, attempt, "", cause)
}

// retryInLane sends req again after a backoff; with to set, req keeps recipient to's
// lane meanwhile, and frees it when it gives up.
func (a *connActor) retryInLane(ctx actor.Context, req DeliverRequest, attempt int, to string, cause error) {
	attempt++
	log := a.log.With().Int64("ticket_id", req.TicketID).Int64("message_id", req.MessageID).Int("attempt", attempt).Logger()
	if attempt > a.cfg.SendAttempts {
		log.Error().Err(cause).Msg("send failed: giving up until the connection restarts")
		a.out.forget(req.MessageID)
		if to != "" {
			a.nextInLane(ctx, to)
		}
		return
	}
	delay := backoff(a.cfg.SendBackoff, attempt)
	log.Warn().Err(cause).Dur("retry_in", delay).Msg("send failed: will retry")
	self, system := ctx.Self(), ctx.ActorSystem()
	time.AfterFunc(delay, func() { system.Root.Send(self, &retryDeliver{req: req, attempt: attempt, to: to}) })
}

type receiptMsg struct{ r engine.Receipt }

// recordFailure marks a message the channel refused for good as failed on its ticket
// (FailMessage), so no restart sends it again. The send stays "done" for this
// activation.
func (a *connActor) recordFailure(ctx actor.Context, req DeliverRequest, cause error) {
	log := a.log.With().Int64("ticket_id", req.TicketID).Int64("message_id", req.MessageID).Logger()
	f, err := a.ticketFuture(ctx, req.TicketID, engine.FailMessage{MessageID: req.MessageID, Reason: failReason(cause)})
	if err != nil {
		log.Warn().Err(err).Msg("record failed send")
		return
	}
	ctx.ReenterAfter(f, func(res any, ferr error) {
		if _, err := ticketResult(res, ferr); err != nil {
			log.Warn().Err(err).Msg("record failed send refused")
		}
	})
}

// failReason is the recorded reason of a refused send: the error's code when it has
// one, else its text, made storable (engine.SanitizeText: valid UTF-8, NUL-free) and
// single-line.
func failReason(err error) string {
	var e *engine.Error
	s := err.Error()
	if errors.As(err, &e) && e.Cause == nil {
		s = string(e.Code)
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, engine.SanitizeText(s))
}

func (a *connActor) onReceipt(ctx actor.Context, r engine.Receipt) error {
	ref, ok := a.out.index.get(r.ProviderID)
	if !ok {
		// A receipt of a message this activation did not send (the previous one did,
		// before a restart or a hand-over): ask the durable record.
		var err error
		if ref, ok, err = a.locate(r.ProviderID); err != nil {
			return err
		}
		if !ok {
			return nil // not ours, or not recorded yet: nothing to move
		}
		a.out.index.add(r.ProviderID, ref)
	}
	f, err := a.ticketFuture(ctx, ref.ticket, engine.AckMessage{MessageID: ref.message, Ack: r.Ack})
	if err != nil {
		return err
	}
	ctx.ReenterAfter(f, func(res any, ferr error) {
		if _, err := ticketResult(res, ferr); err != nil {
			a.log.Warn().Err(err).Int64("ticket_id", ref.ticket).Msg("receipt refused")
		}
	})
	return nil
}

type statusMsg struct{ s engine.StatusChange }

// outRef names one message of one ticket.
type outRef struct{ ticket, message engine.ID }

// actorSink is the ChannelSink a connection actor gives its channel: each call is a
// request to the actor, answered once the input is recorded.
type actorSink struct {
	system  *actor.ActorSystem
	pid     *actor.PID
	timeout time.Duration
	// partitions, when set, takes the customers' messages to the connection's
	// inbound partitions (connection_partition.go) instead of the actor itself:
	// the sink a web-hook uses (Connections.Sink).
	partitions engine.ChannelSink
}

func (s *actorSink) ask(ctx context.Context, msg any) error {
	timeout := s.timeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < timeout {
		timeout = time.Until(dl)
	}
	res, err := s.system.Root.RequestFuture(s.pid, msg, timeout).Result()
	if err != nil {
		return engine.Wrap(engine.ErrUnavailable, fmt.Errorf("connection actor: %w", err))
	}
	ans, ok := res.(*sinkAnswer)
	if !ok {
		return engine.Wrap(engine.ErrInternal, fmt.Errorf("connection actor answered %T", res))
	}
	return ans.err
}

// sinkAnswer is a connection actor's answer to its sink.
type sinkAnswer struct{ err error }

func (s *actorSink) Inbound(ctx context.Context, m engine.InboundMessage) error {
	if s.partitions != nil {
		ctx, cancel := context.WithTimeout(ctx, s.timeout)
		defer cancel()
		return s.partitions.Inbound(ctx, m)
	}
	return s.ask(ctx, &inboundMsg{m: m})
}

func (s *actorSink) Receipt(ctx context.Context, r engine.Receipt) error {
	return s.ask(ctx, &receiptMsg{r: r})
}

func (s *actorSink) Status(ctx context.Context, st engine.StatusChange) error {
	return s.ask(ctx, &statusMsg{s: st})
}
