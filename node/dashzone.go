package node

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/dashboard"
	"atende/persistence/db"
	"atende/persistence/jobs"
	"atende/persistence/journal"
	"atende/persistence/projection"
)

// dashRezoner asks for a rebuild of a tenant's dashboard buckets after its timeZone
// setting changed. The rebuild is a durable River job (dashboard.RezoneArgs) worked by
// the node's River client (node.go): it survives a restart,
// is retried with River's backoff when it fails, is worked by one node, and is unique
// while waiting or running, so nodes asking at once insert one job. Every starting
// node inserts the job of each tenant whose buckets are not in its configured zone (a
// setting written while no job could be inserted).
type dashRezoner struct {
	// static after construction
	proj    *dashboard.Projection
	d       *db.DB
	journal *journal.Store
	log     zerolog.Logger
	jobs    *jobs.Client // inserts the jobs
}

func newDashRezoner(n *Node, l *live) *dashRezoner {
	return &dashRezoner{proj: l.dashboard, d: n.db, journal: l.journal, log: n.log, jobs: n.jobInserter}
}

// kinds is the rebuild's job kind, for the node's River client.
func (r *dashRezoner) kinds() jobs.Kinds {
	return (&dashboard.RezoneWorker{Projection: r.proj, DB: r.d, Source: r.journal}).Kinds()
}

// rezone inserts companyID's rebuild job. A failure is logged: the setting is
// written, and the next node start finds the tenant out of its zone and inserts it.
func (r *dashRezoner) rezone(ctx context.Context, companyID engine.ID) {
	zone, err := r.proj.ConfiguredZone(ctx, r.d.SQL, companyID)
	if err == nil {
		_, err = r.jobs.Insert(ctx, dashboard.RezoneArgs{CompanyID: companyID, Zone: zone}, nil)
	}
	if err != nil {
		r.log.Error().Err(err).Int64("company", companyID).Msg("dashboard rezone job not inserted; inserted at the next start")
	}
}

// catchUp inserts the rebuild job of every tenant whose buckets are not in its
// configured zone.
func (r *dashRezoner) catchUp(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ids, err := r.proj.TenantsToRezone(ctx, r.d)
	if err != nil {
		r.log.Error().Err(err).Msg("dashboard zones check failed")
		return
	}
	for _, id := range ids {
		r.rezone(ctx, id)
	}
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
		// The request's own context: inserting a job is one short statement.
		s.rezoner.rezone(context.WithoutCancel(ctx), companyID)
	}
	return st, err
}

// freshDashboard answers the dashboard once its projections have applied what this
// node has read of the journal. The page reloads when a ticket event reaches it, and
// the realtime publisher sends that event as soon as the tickets' read model has it,
// without waiting for the dashboard's projections; the answer waits for them instead
// (at most dashboardWait, then it answers what they hold).
type freshDashboard struct {
	engine.DashboardQueries
	projections *projection.Some // the dashboard's and the appraisals'
	tail        *journal.Tail
}

const dashboardWait = 2 * time.Second

func newFreshDashboard(q engine.DashboardQueries, l *live) (freshDashboard, error) {
	some, err := l.runner.Only(dashboard.ProjectionName, dashboard.AppraisalProjectionName)
	return freshDashboard{DashboardQueries: q, projections: some, tail: l.tail}, err
}

func (f freshDashboard) Dashboard(ctx context.Context, companyID engine.ID, filter engine.DashboardFilter) (engine.Dashboard, error) {
	wctx, cancel := context.WithTimeout(ctx, dashboardWait)
	_ = f.projections.WaitFor(wctx, f.tail.Head()) // late: answer what they hold
	cancel()
	return f.DashboardQueries.Dashboard(ctx, companyID, filter)
}
