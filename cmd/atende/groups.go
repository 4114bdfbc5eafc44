package main

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"atende/actors"
	"atende/engine"
	"atende/persistence/groups"
)

// newGroups builds the store of the /Groups batches. Its job kind is worked by the
// node's River client (app.go); groups are
// created through the connection actors wherever the cluster placed them, and each
// group's progress goes to the tenant's sockets once the API exists.
func (a *app) newGroups(clock engine.Clock, log zerolog.Logger) (*groups.Store, error) {
	return groups.New(a.db, groups.Config{
		Maker: actors.Connections{Node: a.live.node}, Connections: a.stores.connections, Clock: clock,
		OnChange: func(b engine.GroupBatch) {
			if a.api != nil {
				a.api.PublishGroupBatch(b)
			}
		},
		Jobs: a.jobInserter, Log: log.With().Str("component", "groups").Logger(),
	})
}

// catchUpGroups inserts the job of every batch still running (a job insert lost
// between a batch's commit and its insert); a failure is logged, the next start
// tries again.
func (a *app) catchUpGroups(ctx context.Context, s *groups.Store) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := s.CatchUp(ctx); err != nil {
		a.log.Error().Err(err).Msg("group batches catch-up failed")
	}
}
