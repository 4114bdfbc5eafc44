package main

import (
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/goroutine"
	"atende/persistence/dashboard"
	"atende/persistence/db"
	"atende/persistence/journal"
)

// dashRezoner rebuilds a tenant's dashboard buckets after its timeZone setting
// changed. Each rebuild runs in its own goroutine with its own context, so the admin's
// request does not wait for it; Projection.Rezone makes a rebuild happen once on the
// whole cluster. A node that stopped before rebuilding leaves the tenant's dash_zones
// row in the old zone: every starting node rebuilds the tenants found so.
type dashRezoner struct {
	// static after construction
	proj    *dashboard.Projection
	d       *db.DB
	journal *journal.Store
	log     zerolog.Logger
	group   *goroutine.Group
	ctx     context.Context
	cancel  context.CancelFunc
}

func newDashRezoner(a *app, l *live) *dashRezoner {
	ctx, cancel := context.WithCancel(context.Background())
	r := &dashRezoner{proj: l.dashboard, d: a.db, journal: l.journal, log: a.log, group: &goroutine.Group{},
		ctx: ctx, cancel: cancel}
	a.onClose(func(ctx context.Context) error {
		r.cancel()
		return r.group.Wait(ctx)
	})
	return r
}

// rezone rebuilds companyID's buckets in the background (logged on failure; the next
// node start retries it).
func (r *dashRezoner) rezone(companyID engine.ID) {
	r.group.Go(func() {
		if _, err := r.proj.Rezone(r.ctx, r.d, r.journal, companyID); err != nil && !errors.Is(err, context.Canceled) {
			r.log.Error().Err(err).Int64("company", companyID).Msg("dashboard rezone failed; retried at the next start")
		}
	})
}

// catchUp rebuilds, in the background, every tenant whose buckets are not in its
// configured zone.
func (r *dashRezoner) catchUp() {
	r.group.Go(func() {
		ctx, cancel := context.WithTimeout(r.ctx, time.Minute)
		ids, err := r.proj.TenantsToRezone(ctx, r.d)
		cancel()
		if err != nil {
			r.log.Error().Err(err).Msg("dashboard zones check failed")
			return
		}
		for _, id := range ids {
			if _, err := r.proj.Rezone(r.ctx, r.d, r.journal, id); err != nil {
				r.log.Error().Err(err).Int64("company", id).Msg("dashboard rezone failed; retried at the next start")
			}
		}
	})
}

// rezoningSettings is the settings store the HTTP API writes through: a changed
// timeZone setting rebuilds the tenant's dashboard buckets in the new zone.
type rezoningSettings struct {
	engine.SettingStore
	rezoner *dashRezoner
}

// Set implements engine.SettingStore.
func (s rezoningSettings) Set(ctx context.Context, companyID engine.ID, key, value string) (engine.Setting, error) {
	st, err := s.SettingStore.Set(ctx, companyID, key, value)
	if err == nil && key == engine.SettingTimeZone {
		s.rezoner.rezone(companyID)
	}
	return st, err
}
