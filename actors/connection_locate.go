package actors

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"atende/engine"
)

// locate asks the durable record (ConnectionConfig.Locator) for the message of this
// connection with the channel's id pid. Without a locator nothing is found.
func (a *connActor) locate(pid string) (outRef, bool, error) {
	if a.cfg.Locator == nil || pid == "" {
		return outRef{}, false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	defer cancel()
	tid, mid, found, err := a.cfg.Locator.ByProviderID(ctx, a.id, pid)
	if err != nil {
		return outRef{}, false, engine.Wrap(engine.ErrUnavailable, err)
	}
	return outRef{ticket: tid, message: mid}, found, nil
}

// storedAt asks the durable record (locator; nil: none, nothing is found) where an
// inbound message of connection connID with provider id pid is already stored on a
// ticket. It makes a store round trip: the routing calls it outside the actor.
func storedAt(ctx context.Context, locator engine.ProviderLocator, connID engine.ID, pid string) (engine.Stored, error) {
	if locator == nil || pid == "" {
		return engine.Stored{Asked: true}, nil
	}
	tid, _, found, err := locator.ByProviderID(ctx, connID, pid)
	if err != nil {
		return engine.Stored{}, engine.Wrap(engine.ErrUnavailable, err)
	}
	return engine.Stored{Asked: true, Found: found, Ticket: tid}, nil
}

// opened is when a contact's ticket opened, as far as the actor knows.
type opened struct {
	ticket engine.ID
	at     time.Time
}

// quotedID is our id of the message with provider id pid, for a quoted reply: from
// memory, else from the durable record (a quote of a message the previous activation
// sent, or of the customer's own earlier message, then kept in memory). 0 when
// unknown.
func (a *connActor) quotedID(pid string) engine.ID {
	if pid == "" {
		return 0
	}
	if id := a.out.index.messageOf(pid); id != 0 {
		return id
	}
	ref, found, err := a.locate(pid)
	if err != nil {
		a.log.Warn().Err(err).Str("provider_id", pid).Msg("quoted message lookup")
		return 0
	}
	if !found {
		return 0
	}
	// Kept in memory, as a receipt's lookup is: a message quoted once is often
	// quoted again.
	a.out.index.add(pid, ref)
	return ref.message
}

// onRevoke records that the channel's side deleted a message for everyone. The
// message is looked for where it most likely is — the ticket that sent it (memory),
// else the contact's current ticket — then in the durable record; the sink is
// answered once the deletion is recorded, or when nothing holds the message.
func (a *connActor) onRevoke(ctx actor.Context, m engine.InboundMessage) {
	cmd := engine.RevokeMessage{ProviderID: m.RevokedProviderID, FromMe: m.FromMe}
	if !engine.ValidProviderID(cmd.ProviderID) {
		a.answer(ctx, &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"providerId": engine.MsgInvalidValue}})
		return
	}
	var first engine.ID
	if ref, ok := a.out.index.get(cmd.ProviderID); ok {
		first = ref.ticket
	} else if cid, ok := a.contacts.get(m.From.Number); ok {
		first = a.tickets.at(cid)
	}
	a.revokeAt(ctx, cmd, first, true)
}

func (a *connActor) revokeAt(ctx actor.Context, cmd engine.RevokeMessage, tid engine.ID, thenLocate bool) {
	log := a.log.With().Str("provider_id", cmd.ProviderID).Logger()
	if tid == 0 {
		ref, found, err := a.locate(cmd.ProviderID)
		if err != nil || !found {
			if err == nil {
				log.Info().Msg("revoked message not found: nothing to delete")
			}
			a.answer(ctx, err)
			return
		}
		tid, thenLocate = ref.ticket, false
	}
	f, err := a.ticketFuture(ctx, tid, cmd)
	if err != nil {
		a.answer(ctx, err)
		return
	}
	ctx.ReenterAfter(f, func(res any, ferr error) {
		r, err := ticketResult(res, ferr)
		code := engine.CodeOf(err)
		switch {
		case err == nil && r.Events > 0:
			a.answer(ctx, nil)
			return
		case err != nil && code != engine.ErrNoTicketFound && code != engine.ErrInvalidTransition:
			a.answer(ctx, err)
			return
		case !thenLocate:
			a.answer(ctx, nil) // gone, moved, or already deleted: nothing left to do
			return
		}
		ref, found, err := a.locate(cmd.ProviderID)
		if err != nil || !found || ref.ticket == tid {
			a.answer(ctx, err)
			return
		}
		a.revokeAt(ctx, cmd, ref.ticket, false)
	})
}
