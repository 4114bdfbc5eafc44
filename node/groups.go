package node

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"atende/actors"
	"atende/engine"
	"atende/persistence/groups"
)

// newGroups builds the store of the /Groups batches. Its job kind is worked by the
// node's River client (node.go); groups are
// created through the connection actors wherever the cluster placed them, and each
// group's progress goes to the tenant's sockets once the API exists.
func (n *Node) newGroups(clock engine.Clock, log zerolog.Logger) (*groups.Store, error) {
	return groups.New(n.db, groups.Config{
		Maker: actors.Connections{Node: n.live.node}, Connections: n.stores.connections, Clock: clock,
		OnChange: func(b engine.GroupBatch) {
			if n.api != nil {
				n.api.PublishGroupBatch(b)
			}
		},
		Jobs: n.jobInserter, Log: log.With().Str("component", "groups").Logger(),
	})
}

// catchUpGroups inserts the job of every batch still running (a job insert lost
// between a batch's commit and its insert); a failure is logged, the next start
// tries again.
func (n *Node) catchUpGroups(ctx context.Context, s *groups.Store) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := s.CatchUp(ctx); err != nil {
		n.log.Error().Err(err).Msg("group batches catch-up failed")
	}
}
