package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"atende/actors/wire"
	"atende/engine"
)

// CmdConnectionCampaign sends one campaign or broadcast message (an
// engine.CampaignOutbound) on the connection's channel and answers with the provider's
// id once the channel took it, or with the channel's refusal. Campaign sends are not
// messages of a ticket: the campaign records their outcome (persistence/campaign).
const CmdConnectionCampaign = "connection.campaign"

// campaignDone is the outcome of one campaign send, back from its goroutine.
type campaignDone struct {
	providerID string
	err        error
}

// campaignJob is one campaign send: the message, and who asked (answered once the
// channel is done, from whatever message the actor is handling then).
type campaignJob struct {
	m      engine.CampaignOutbound
	caller *actor.PID
}

// campaignSend hands m to the channel and answers the caller when the channel is
// done. The message id is the send's idempotency key (outbound.admitCampaign):
//
//   - within one activation a message id that already went out answers its provider
//     id again without a second send, and one still in flight answers ERR_UNAVAILABLE
//     (the campaign tries again later);
//   - across activations a channel that de-duplicates re-sends (WhatsApp, the web
//     chat) gets the same id again and sends it once; on the others an attempt is
//     recorded before the send, and a message id with a recorded attempt is refused
//     with ERR_CHANNEL_OUTCOME_UNKNOWN rather than sent a second time.
//
// The send takes its recipient's lane (outbound.go), so it waits for a message of the
// customer's conversation in flight, and the conversation's next message waits for it.
// Pacing is the campaign's: it sends at the rate it was given (persistence/campaign).
func (a *connActor) campaignSend(ctx actor.Context, m engine.CampaignOutbound) {
	if a.channel == nil || !a.started {
		ctx.Respond(ErrorReply(engine.Wrap(engine.ErrUnavailable, fmt.Errorf("connection %d: channel not running", a.id))))
		return
	}
	switch pid, verdict := a.out.admitCampaign(m.MessageID); verdict {
	case campaignTakenYet:
		ctx.Respond(a.okReply(pid))
		return
	case campaignInFlight:
		ctx.Respond(ErrorReply(engine.Wrap(engine.ErrUnavailable, fmt.Errorf("campaign message %d in flight", m.MessageID))))
		return
	}
	job := &campaignJob{m: m, caller: ctx.Sender()}
	if a.out.enter(m.To, queuedSend{campaign: job}) {
		a.launchCampaign(ctx, job)
	}
}

// launchCampaign runs one campaign send, holding its recipient's lane, in a tracked
// goroutine; when it is done it frees the lane and answers the caller.
func (a *connActor) launchCampaign(ctx actor.Context, job *campaignJob) {
	m := job.m
	out := engine.OutboundMessage{MessageID: m.MessageID, To: m.To, Body: m.Body, MediaType: m.MediaType, MediaPath: m.MediaPath}
	ch, connID, timeout := a.channel, a.id, a.cfg.CallTimeout
	var attempts engine.SendAttemptLog
	if !a.idempotent {
		attempts = a.cfg.Attempts
	}
	interactive, _ := ch.(engine.InteractiveSender)
	if interactive == nil || m.Buttons.Empty() {
		out.Body = engine.ButtonsAsText(m.Body, m.Buttons)
	}
	clock := a.cfg.Clock
	offActor(ctx, a.cfg.Routines, 4*timeout, func() (done campaignDone) {
		sctx, cancel := context.WithTimeout(context.Background(), 4*timeout)
		defer cancel()
		if attempts != nil {
			seen, err := attempts.Attempted(sctx, connID, []engine.ID{out.MessageID})
			if err != nil {
				done.err = engine.Wrap(engine.ErrUnavailable, err)
				return
			}
			if seen[out.MessageID] {
				done.err = engine.E(engine.ErrChannelOutcomeUnknown)
				return
			}
			if err := attempts.RecordAttempt(sctx, connID, out.MessageID, clock.Now()); err != nil {
				done.err = engine.Wrap(engine.ErrUnavailable, err)
				return
			}
		}
		if interactive != nil && !m.Buttons.Empty() {
			done.providerID, done.err = interactive.SendInteractive(sctx, out, m.Buttons)
		} else {
			done.providerID, done.err = ch.Send(sctx, out)
		}
		if attempts != nil && done.err != nil && errors.Is(done.err, engine.ErrChannelTemporary) {
			fctx, fcancel := context.WithTimeout(context.Background(), timeout)
			defer fcancel()
			_ = attempts.ForgetAttempt(fctx, connID, out.MessageID)
		}
		return done
	}, func(d campaignDone, err error) {
		if err == nil {
			err = d.err
		}
		// Also when the goroutine could not start (errStopping): nothing else would
		// free the lane.
		a.out.settleCampaign(m.MessageID, d.providerID, err == nil)
		a.nextInLane(ctx, m.To)
		a.answerCampaign(ctx, job, d, err)
	})
}

// answerCampaign answers a campaign send's caller: the provider id, or the error.
func (a *connActor) answerCampaign(ctx actor.Context, job *campaignJob, d campaignDone, err error) {
	if job.caller == nil {
		return
	}
	reply := a.okReply(d.providerID)
	if err != nil {
		if d.err != nil { // the channel's answer, not the goroutine's
			err = keepCode(err, engine.ErrSendingWappMsg)
		}
		reply = ErrorReply(err)
	}
	ctx.Send(job.caller, reply)
}

// keepCode keeps the catalogue code of a channel error (and its reason); any other
// error is wrapped in otherwise.
func keepCode(err error, otherwise engine.Code) error {
	var e *engine.Error
	if errors.As(err, &e) {
		return err
	}
	return engine.Wrap(otherwise, err)
}

// SendCampaign implements engine.CampaignSender: the send goes to the actor of
// connectionID wherever the cluster placed it.
func (c Connections) SendCampaign(ctx context.Context, connectionID engine.ID, m engine.CampaignOutbound) (string, error) {
	var pid string
	err := c.call(ctx, connectionID, 0, CmdConnectionCampaign, m, &pid)
	return pid, err
}

var _ engine.CampaignSender = Connections{}

func decodeCampaign(cmd *wire.Command) (engine.CampaignOutbound, error) {
	var m engine.CampaignOutbound
	if err := json.Unmarshal(cmd.Payload, &m); err != nil {
		return m, engine.Wrap(engine.ErrInvalidJSON, err)
	}
	if m.MessageID <= 0 || m.To == "" {
		return m, engine.E(engine.ErrValidation)
	}
	return m, nil
}
