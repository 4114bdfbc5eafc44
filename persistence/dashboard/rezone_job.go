package dashboard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/jobs"
)

// RezoneQueue is the River queue of the dashboard's rebuild jobs.
const RezoneQueue = "dashboard"

// RezoneArgs is the durable job (River, docs/scheduling.md) that rebuilds one tenant's
// buckets after its timeZone setting changed: Projection.Rezone, retried with River's
// backoff when it fails, worked by one node of the cluster.
//
// It is unique by its args while waiting or running, so several nodes asking for the
// same rebuild (each starting node checks every tenant; a request that changed the
// setting) insert one job. Zone is the zone asked for: a later change to another zone
// inserts a job of its own even while this one runs, and whichever runs reads the
// setting as it is then.
type RezoneArgs struct {
	CompanyID engine.ID `json:"companyId"`
	Zone      string    `json:"zone"`
}

// Kind implements river.JobArgs.
func (RezoneArgs) Kind() string { return "dashboard.rezone" }

// InsertOpts implements river.JobArgsWithInsertOpts: unique among the waiting and
// running jobs (a completed one does not stop the same zone being asked again later).
func (RezoneArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: RezoneQueue, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateRetryable, rivertype.JobStateScheduled,
	}}}
}

// RezoneWorker works RezoneArgs jobs.
type RezoneWorker struct {
	river.WorkerDefaults[RezoneArgs]
	// static after construction
	Projection *Projection
	DB         *db.DB
	Source     Source
}

// Kinds is the rebuild's job kind for the node's River client (package jobs): its
// queue, one rebuild at a time per node, this worker.
func (w *RezoneWorker) Kinds() jobs.Kinds {
	return jobs.Kinds{Queue: RezoneQueue, Workers: 1, Register: func(ws *river.Workers) error {
		return river.AddWorkerSafely(ws, w)
	}}
}

// errZoneMoved fails a job whose tenant is still not in its configured zone after the
// rebuild: the setting changed while it ran and the job of that change was skipped as
// a duplicate of a job already past its check, so this one is retried.
var errZoneMoved = errors.New("the tenant's zone changed during the rebuild")

// rezoneTimeout bounds one rebuild. It is what lets River rescue the job of a node
// that died mid-rebuild: without one (the node's client has none) River never takes a
// running job back, and a later insert is skipped as a duplicate of it.
const rezoneTimeout = 30 * time.Minute

// Timeout implements river.Worker.
func (w *RezoneWorker) Timeout(*river.Job[RezoneArgs]) time.Duration { return rezoneTimeout }

// Work implements river.Worker: it rebuilds the tenant and then checks that its
// buckets are in the zone configured now; an error makes River retry the job.
func (w *RezoneWorker) Work(ctx context.Context, job *river.Job[RezoneArgs]) error {
	if _, err := w.Projection.Rezone(ctx, w.DB, w.Source, job.Args.CompanyID); err != nil {
		return err
	}
	need, err := w.Projection.NeedsRezone(ctx, w.DB, job.Args.CompanyID)
	if err != nil {
		return err
	}
	if need {
		return fmt.Errorf("rezone tenant %d: %w", job.Args.CompanyID, errZoneMoved)
	}
	return nil
}

// NeedsRezone says whether companyID's buckets are in a zone other than its
// configured one. A tenant with nothing folded yet needs nothing: its first batch
// records the configured zone.
func (p *Projection) NeedsRezone(ctx context.Context, d *db.DB, companyID engine.ID) (bool, error) {
	var name string
	err := d.SQL.QueryRowContext(ctx, `SELECT zone FROM dash_zones WHERE company_id = $1`, companyID).Scan(&name)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("dashboard zone of tenant %d: %w", companyID, err)
	}
	want, err := p.ConfiguredZone(ctx, d.SQL, companyID)
	if err != nil {
		return false, err
	}
	return name != want, nil
}

// ConfiguredZone is the name of companyID's configured zone, as dash_zones records it,
// read through q.
func (p *Projection) ConfiguredZone(ctx context.Context, q db.Querier, companyID engine.ID) (string, error) {
	loc, err := p.zoneOf(ctx, q, companyID)
	if err != nil {
		return "", fmt.Errorf("dashboard zone of tenant %d: %w", companyID, err)
	}
	return p.locs.load(loc.String()).String(), nil
}
