package flow

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/jobs"
)

// The durable timers of running flows, on River like every other timer of the
// product (docs/scheduling.md): a wait node's timeout is a job of kind
// "flow.timeout" due at the wait's end, claimed by one node of the cluster; the
// periodic "flow.sweep" job (run by River's leader alone) wakes runs left between two
// steps by a node that stopped. River's tables are migrated by
// schedule.Migrate; the node's one River client (package jobs) works them on their
// own queue, "flows".

// timeoutArgs is the payload of a wait's timeout job. (ticket, seq) names the wait:
// the job is unique by its arguments, so inserting it again after a restart adds
// nothing.
type timeoutArgs struct {
	CompanyID int64 `json:"companyId" river:"unique"`
	TicketID  int64 `json:"ticketId" river:"unique"`
	Seq       int64 `json:"seq" river:"unique"`
}

func (timeoutArgs) Kind() string { return "flow.timeout" }

type sweepArgs struct{}

func (sweepArgs) Kind() string { return "flow.sweep" }

const queueName = "flows"

// Waker is what the jobs call: the flow actors, through the cluster.
type Waker interface {
	// Timeout tells the run of ticketID that its wait seq timed out.
	Timeout(ctx context.Context, companyID, ticketID engine.ID, seq int64) error
	// Wake makes the run of ticketID carry on if it is running.
	Wake(ctx context.Context, companyID, ticketID engine.ID) error
}

// TimersConfig configures Timers. Zero values have defaults.
type TimersConfig struct {
	// Jobs inserts the wait timeouts: the node's River client, or an insert-only one
	// (package jobs); nil makes an insert-only client of its own. The node's client
	// works them (Kinds).
	Jobs *jobs.Client
	// SweepEvery is the period of the sweep; 0 means 30 s.
	SweepEvery time.Duration
	// StalledAfter is how long a run recorded running must be quiet before the sweep
	// wakes it; 0 means 10 s.
	StalledAfter time.Duration
}

// Timers inserts wait timeouts and describes the flow jobs for the node's River
// client.
type Timers struct {
	// static after NewTimers
	runs  *Runs
	waker Waker
	cfg   TimersConfig
	jobs  *jobs.Client
}

// NewTimers returns the timers of d; their jobs call waker. Runs may be nil (no
// sweep).
func NewTimers(d *db.DB, runs *Runs, waker Waker, cfg TimersConfig) (*Timers, error) {
	ins, err := jobs.InserterFor(d, cfg.Jobs)
	if err != nil {
		return nil, fmt.Errorf("flow timers: %w", err)
	}
	return &Timers{runs: runs, waker: waker, cfg: cfg, jobs: ins}, nil
}

// jobTimeout bounds one flow job (a wake or a timeout handed to the flow actor, or a
// sweep); being finite, it also lets River rescue the job of a node that died
// working it.
const jobTimeout = time.Minute

// Kinds is the flow job kinds for the node's River client (package jobs): the flows'
// queue, 50 jobs at once, the timeout and sweep workers, and the periodic sweep.
func (t *Timers) Kinds() jobs.Kinds {
	return jobs.Kinds{Queue: queueName, Workers: 50,
		Register: func(w *river.Workers) error {
			if err := river.AddWorkerSafely(w, &timeoutWorker{t: t}); err != nil {
				return err
			}
			return river.AddWorkerSafely(w, &sweepWorker{t: t})
		},
		Periodic: []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(cmp.Or(t.cfg.SweepEvery, 30*time.Second)),
			func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, &river.InsertOpts{Queue: queueName} },
			&river.PeriodicJobOpts{RunOnStart: true})},
	}
}

// timeoutWorker hands a wait's timeout to its run.
type timeoutWorker struct {
	river.WorkerDefaults[timeoutArgs]
	t *Timers
}

func (w *timeoutWorker) Timeout(*river.Job[timeoutArgs]) time.Duration { return jobTimeout }

func (w *timeoutWorker) Work(ctx context.Context, j *river.Job[timeoutArgs]) error {
	return w.t.waker.Timeout(ctx, j.Args.CompanyID, j.Args.TicketID, j.Args.Seq)
}

// sweepWorker wakes the runs left quiet between two steps.
type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	t *Timers
}

func (w *sweepWorker) Timeout(*river.Job[sweepArgs]) time.Duration { return jobTimeout }

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	if w.t.runs == nil {
		return nil
	}
	refs, err := w.t.runs.Stalled(ctx, cmp.Or(w.t.cfg.StalledAfter, 10*time.Second), 500)
	if err != nil {
		return err
	}
	for _, r := range refs {
		// One run that cannot be woken now is tried again by the next sweep.
		_ = w.t.waker.Wake(ctx, r.CompanyID, r.TicketID)
	}
	return nil
}

// ScheduleTimeout inserts the timeout of the wait seq of ticketID, due at at. The
// same wait inserted again is one job.
func (t *Timers) ScheduleTimeout(ctx context.Context, companyID, ticketID engine.ID, seq int64, at time.Time) error {
	_, err := t.jobs.Insert(ctx, timeoutArgs{CompanyID: companyID, TicketID: ticketID, Seq: seq},
		&river.InsertOpts{Queue: queueName, ScheduledAt: at, UniqueOpts: river.UniqueOpts{ByArgs: true}})
	if err != nil {
		return fmt.Errorf("insert timeout of flow run %d wait %d: %w", ticketID, seq, err)
	}
	return nil
}

// WakeRunning wakes every run recorded running, at once: a node calls it when it
// starts, so that a run its previous process left between two steps carries on
// without waiting for the sweep (whose leader may be the dead process until its
// lease lapses). Waking a run that is fine does nothing, so every node may call it.
func (t *Timers) WakeRunning(ctx context.Context) error {
	if t.runs == nil {
		return nil
	}
	refs, err := t.runs.Stalled(ctx, 0, 1000)
	if err != nil {
		return err
	}
	for _, r := range refs {
		// A run that cannot be woken now is left to the sweep.
		_ = t.waker.Wake(ctx, r.CompanyID, r.TicketID)
	}
	return nil
}
