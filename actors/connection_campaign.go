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

// campaignSend hands m to the channel in a tracked goroutine and answers the caller
// when the channel is done. The message id is the send's idempotency key:
//
//   - within one activation a message id that already went out answers its provider
//     id again without a second send, and one still in flight answers ERR_UNAVAILABLE
//     (the campaign tries again later);
//   - across activations a channel that de-duplicates re-sends (WhatsApp, the web
//     chat) gets the same id again and sends it once; on the others an attempt is
//     recorded before the send, and a message id with a recorded attempt is refused
//     with ERR_CHANNEL_OUTCOME_UNKNOWN rather than sent a second time.
func (a *connActor) campaignSend(ctx actor.Context, m engine.CampaignOutbound) {
	if pid, ok := a.campaignSent[m.MessageID]; ok {
		ctx.Respond(a.okReply(pid))
		return
	}
	if a.channel == nil || !a.started {
		ctx.Respond(ErrorReply(engine.Wrap(engine.ErrUnavailable, fmt.Errorf("connection %d: channel not running", a.id))))
		return
	}
	if a.campaignBusy[m.MessageID] {
		ctx.Respond(ErrorReply(engine.Wrap(engine.ErrUnavailable, fmt.Errorf("campaign message %d in flight", m.MessageID))))
		return
	}
	a.campaignBusy[m.MessageID] = true
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
		delete(a.campaignBusy, m.MessageID)
		switch {
		case err != nil:
			ctx.Respond(ErrorReply(err))
		case d.err != nil:
			ctx.Respond(ErrorReply(keepCode(d.err, engine.ErrSendingWappMsg)))
		default:
			a.campaignSent[m.MessageID] = d.providerID
			if len(a.campaignSent) > 200_000 {
				clear(a.campaignSent) // bounded memory; the channel's idempotency covers the rest
			}
			ctx.Respond(a.okReply(d.providerID))
		}
	})
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
