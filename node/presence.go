package node

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"time"

	"github.com/rs/zerolog"

	"atende/actors"
	"atende/engine"
	"atende/transport/socket"
)

// Presence leases (engine.Presence): a user with a socket on this node is online
// under a lease of this node, refreshed well within presenceTTL; the sockets are
// looked at every presenceTick, so a connect or a last disconnect shows within it.
const (
	presenceTTL  = 30 * time.Second
	presenceTick = 2 * time.Second
)

type presenceKey struct{ company, user engine.ID }

// presenceKeeper mirrors the users connected to this node's hub into the shared
// presence, until ctx ends; then it drops this node's leases.
type presenceKeeper struct {
	hub      *socket.Hub
	presence engine.Presence
	node     string
	log      zerolog.Logger
	leased   map[presenceKey]time.Time // when each lease was last written
	// changed, when set, is told of a user that came online on this node or left it
	// (the wait panel's radar refreshes on the "presence" socket event it sends).
	changed func(company, user engine.ID)
}

func (k *presenceKeeper) run(ctx context.Context) {
	t := time.NewTicker(presenceTick)
	defer t.Stop()
	for {
		k.sync(ctx)
		select {
		case <-ctx.Done():
			k.dropAll()
			return
		case <-t.C:
		}
	}
}

// sync writes the leases of users that came online or whose lease is due, and
// drops those of users with no socket left.
func (k *presenceKeeper) sync(ctx context.Context) {
	now := time.Now()
	seen := map[presenceKey]bool{}
	for _, p := range k.hub.Online() {
		key := presenceKey{p.CompanyID, p.UserID}
		seen[key] = true
		at, known := k.leased[key]
		if known && now.Sub(at) < presenceTTL/3 {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, presenceTick)
		err := k.presence.SetOnline(cctx, p.CompanyID, p.UserID, p.QueueIDs, k.node, presenceTTL)
		cancel()
		if err != nil {
			k.log.Warn().Err(err).Int64("user_id", p.UserID).Msg("presence lease not written")
			continue
		}
		k.leased[key] = now
		if !known && k.changed != nil {
			k.changed(key.company, key.user)
		}
	}
	for key := range k.leased {
		if seen[key] {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, presenceTick)
		err := k.presence.SetOffline(cctx, key.company, key.user, k.node)
		cancel()
		if err != nil {
			k.log.Warn().Err(err).Int64("user_id", key.user).Msg("presence lease not dropped (it lapses)")
		}
		delete(k.leased, key)
		if k.changed != nil {
			k.changed(key.company, key.user)
		}
	}
}

func (k *presenceKeeper) dropAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for key := range k.leased {
		_ = k.presence.SetOffline(ctx, key.company, key.user, k.node)
	}
	k.leased = map[presenceKey]time.Time{}
}

// startPresence runs the presence keeper of this node, into Redis in a cluster and
// into this process's memory on a single node (the same code); it stops, dropping
// this node's leases, when the node closes.
func (n *Node) startPresence(hub *socket.Hub, routines *actors.Routines, changed func(company, user engine.ID)) {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	k := &presenceKeeper{hub: hub, presence: n.presence, leased: map[presenceKey]time.Time{}, changed: changed,
		node: fmt.Sprintf("%s-%d-%x", host, os.Getpid(), b), log: n.log.With().Str("component", "presence").Logger()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	if !routines.Go(func() { defer close(done); k.run(ctx) }) {
		cancel()
		return
	}
	n.onClose(func(context.Context) error { cancel(); <-done; return nil })
}
