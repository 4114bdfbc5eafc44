package node

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"atende/actors"
	"atende/engine"
	"atende/persistence/redisstate"
	"atende/transport/socket"
)

// subscribeRevocations acts on every node, this one included, on what user changes
// and logouts announce (Redis in a cluster, in process on a single node): a user
// changed or deleted (token.Service.Forget, announced by announceUserChanges) is
// forgotten by the token cache and the user's sockets here are closed so that they
// reconnect and authenticate again (socket.Hub.Reauthenticate); a logged-out
// session's tokens are refused here and its sockets closed for good
// (socket.Hub.EndSession). A logout (token.Service.Logout) is announced through the
// same channel.
func (n *Node) subscribeRevocations(ctx context.Context, hub *socket.Hub, routines *actors.Routines) error {
	log := n.log.With().Str("component", "revocations").Logger()
	cancel, err := n.revocations.SubscribeAll(ctx, func(r redisstate.Revocation) {
		if r.Session == "" {
			n.tokens.ForgetLocal(r.UserID) // not Forget: that would announce it again
			hub.Reauthenticate(r.UserID)
			return
		}
		n.tokens.SessionEnded(r.Session)
		if n := hub.EndSession(r.UserID, r.Session); n > 0 {
			log.Info().Int64("user_id", r.UserID).Int("sockets", n).Msg("logged-out session's sockets closed")
		}
	})
	if err != nil {
		return err
	}
	n.onClose(func(context.Context) error { cancel(); return nil })
	n.tokens.OnSessionEnd(func(ctx context.Context, userID engine.ID, session string) error {
		return n.revocations.EndSession(ctx, userID, session)
	})
	n.tokens.OnForget(n.announceUserChanges(log, routines))
	n.syncEndedSessions(log, hub, routines, endedSessionSync)
	return nil
}

// endedSessionSync is how often a node reads the ended sessions back from the
// database: a logout whose announcement this node missed (Redis down, a dropped
// subscription) closes its sockets here within this time.
const endedSessionSync = 30 * time.Second

// syncEndedSessions runs token.Service.Sync every period until the node closes,
// closing the sockets of each session it learns of (and pruning expired records).
func (n *Node) syncEndedSessions(log zerolog.Logger, hub *socket.Hub, routines *actors.Routines, period time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	if !routines.Go(func() {
		defer close(done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			sctx, scancel := context.WithTimeout(ctx, period)
			if err := n.syncEndedOnce(sctx, log, hub); err != nil {
				log.Warn().Err(err).Msg("ended sessions not synced")
			}
			scancel()
		}
	}) {
		close(done)
	}
	n.onClose(func(context.Context) error { cancel(); <-done; return nil })
}

// syncEndedOnce is one round of syncEndedSessions: the sessions recorded as ended
// that this node did not know of are refused from now on and their sockets here
// closed.
func (n *Node) syncEndedOnce(ctx context.Context, log zerolog.Logger, hub *socket.Hub) error {
	ended, err := n.tokens.Sync(ctx)
	if err != nil {
		return err
	}
	for _, e := range ended {
		if n := hub.EndSession(e.UserID, e.Session); n > 0 {
			log.Info().Int64("user_id", e.UserID).Int("sockets", n).Msg("ended session's sockets closed (sync)")
		}
	}
	return nil
}

// announceUserChanges returns the token.Service OnForget hook: every user the REST
// API changed or deleted is announced (engine.Revocations) by one goroutine, off the
// request path, in the order changed, until the node closes. A change the full queue
// cannot take, or whose announcement fails, is only logged: the other nodes still
// refuse the stale token within the token cache's TTL.
func (n *Node) announceUserChanges(log zerolog.Logger, routines *actors.Routines) func(engine.ID) {
	queue := make(chan engine.ID, 256)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	if !routines.Go(func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case id := <-queue:
				pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
				if err := n.revocations.Publish(pctx, id); err != nil {
					log.Warn().Err(err).Int64("user_id", id).Msg("revocation not announced")
				}
				pcancel()
			}
		}
	}) {
		close(done) // shutting down already: nothing will be announced
	}
	n.onClose(func(context.Context) error { cancel(); <-done; return nil })
	return func(id engine.ID) {
		select {
		case queue <- id:
		default:
			log.Warn().Int64("user_id", id).Msg("revocation not announced: too many pending")
		}
	}
}
