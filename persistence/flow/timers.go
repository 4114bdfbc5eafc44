package flow

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"atende/engine"
	"atende/persistence/db"
)

// The durable timers of running flows, on River like every other timer of the
// product (docs/scheduling.md): a wait node's timeout is a job of kind
// "flow.timeout" due at the wait's end, claimed by one node of the cluster; the
// periodic "flow.sweep" job (run by River's leader alone) wakes runs left between two
// steps by a node that stopped. River's tables are migrated by
// schedule.Migrate; this client uses its own queue, "flows".

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
	// Node names this node's River client; "" lets River choose.
	Node string
	// PollInterval is how often due jobs are looked for; 0 means 200 ms.
	PollInterval time.Duration
	// SweepEvery is the period of the sweep; 0 means 30 s.
	SweepEvery time.Duration
	// StalledAfter is how long a run recorded running must be quiet before the sweep
	// wakes it; 0 means 10 s.
	StalledAfter time.Duration
	// Logger receives River's logs; nil discards all but errors.
	Logger *slog.Logger
}

// Timers inserts wait timeouts and runs the flow jobs of this node.
type Timers struct {
	// static after NewTimers
	runs   *Runs
	waker  Waker
	insert func(ctx context.Context, args timeoutArgs, at time.Time) error
	start  func(ctx context.Context) error
	stop   func(ctx context.Context) error
}

// NewTimers builds the River client of d's dialect; its jobs call waker. Runs may be
// nil (no sweep).
func NewTimers(d *db.DB, runs *Runs, waker Waker, cfg TimersConfig) (*Timers, error) {
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, river.WorkFunc(func(ctx context.Context, j *river.Job[timeoutArgs]) error {
		return waker.Timeout(ctx, j.Args.CompanyID, j.Args.TicketID, j.Args.Seq)
	})); err != nil {
		return nil, fmt.Errorf("flow timers: %w", err)
	}
	stalled := cmp.Or(cfg.StalledAfter, 10*time.Second)
	if err := river.AddWorkerSafely(workers, river.WorkFunc(func(ctx context.Context, j *river.Job[sweepArgs]) error {
		if runs == nil {
			return nil
		}
		refs, err := runs.Stalled(ctx, stalled, 500)
		if err != nil {
			return err
		}
		for _, r := range refs {
			// One run that cannot be woken now is tried again by the next sweep.
			_ = waker.Wake(ctx, r.CompanyID, r.TicketID)
		}
		return nil
	})); err != nil {
		return nil, fmt.Errorf("flow timers: %w", err)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(discard{}, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	rc := &river.Config{
		ID:                   cfg.Node,
		Logger:               logger,
		MaxAttempts:          12,
		RescueStuckJobsAfter: time.Minute,
		FetchPollInterval:    cmp.Or(cfg.PollInterval, 200*time.Millisecond),
		JobTimeout:           time.Minute,
		Queues:               map[string]river.QueueConfig{queueName: {MaxWorkers: 50}},
		Workers:              workers,
		PeriodicJobs: []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(cmp.Or(cfg.SweepEvery, 30*time.Second)),
			func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, &river.InsertOpts{Queue: queueName} },
			&river.PeriodicJobOpts{RunOnStart: true})},
	}
	if rc.FetchPollInterval < 100*time.Millisecond {
		rc.FetchCooldown = rc.FetchPollInterval
	}
	opts := func(at time.Time) *river.InsertOpts {
		return &river.InsertOpts{Queue: queueName, ScheduledAt: at, UniqueOpts: river.UniqueOpts{ByArgs: true}}
	}
	switch d.Dialect {
	case db.Postgres:
		c, err := river.NewClient(riverpgxv5.New(d.Pool), rc)
		if err != nil {
			return nil, fmt.Errorf("flow timers: %w", err)
		}
		return &Timers{runs: runs, waker: waker,
			insert: func(ctx context.Context, a timeoutArgs, at time.Time) error {
				_, err := c.Insert(ctx, a, opts(at))
				return err
			},
			start: c.Start, stop: c.Stop,
		}, nil
	default:
		rc.PollOnly = true
		c, err := river.NewClient(riversqlite.New(d.SQL), rc)
		if err != nil {
			return nil, fmt.Errorf("flow timers: %w", err)
		}
		return &Timers{runs: runs, waker: waker,
			insert: func(ctx context.Context, a timeoutArgs, at time.Time) error {
				_, err := c.Insert(ctx, a, opts(at))
				return err
			},
			start: c.Start, stop: c.Stop,
		}, nil
	}
}

// ScheduleTimeout inserts the timeout of the wait seq of ticketID, due at at. The
// same wait inserted again is one job.
func (t *Timers) ScheduleTimeout(ctx context.Context, companyID, ticketID engine.ID, seq int64, at time.Time) error {
	if err := t.insert(ctx, timeoutArgs{CompanyID: companyID, TicketID: ticketID, Seq: seq}, at); err != nil {
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

// Start starts working this node's flow jobs.
func (t *Timers) Start(ctx context.Context) error { return t.start(ctx) }

// Stop stops working, waiting for jobs in progress (or ctx).
func (t *Timers) Stop(ctx context.Context) error { return t.stop(ctx) }

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
