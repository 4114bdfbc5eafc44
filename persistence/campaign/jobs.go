package campaign

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"atende/persistence/db"
)

// runArgs is the payload of the job that works one connection's sends of a campaign.
// There is at most one such job waiting or running per (campaign, connection): it is
// unique by its arguments while not finished, so a resume that races a running job
// inserts nothing.
type runArgs struct {
	CompanyID    int64 `json:"companyId" river:"unique"`
	CampaignID   int64 `json:"campaignId" river:"unique"`
	ConnectionID int64 `json:"connectionId" river:"unique"`
}

// Kind names the job kind in river_job.
func (runArgs) Kind() string { return "campaign.run" }

// queueName is the River queue of campaign jobs; the same tables as the schedules'
// timers (one mechanism, docs/scheduling.md), its own queue so that a campaign of
// 100,000 contacts does not hold the workers a due reminder needs.
const queueName = "campaigns"

// JobsConfig configures the River client of campaign jobs on one node.
type JobsConfig struct {
	// Node names the client; "" lets River choose.
	Node string
	// Workers is how many (campaign, connection) jobs a node works at once (50 when
	// zero). A job mostly waits for its next send time, snoozed, not holding one.
	Workers int
	// PollInterval is how often the node looks for due jobs (500 ms when zero).
	PollInterval time.Duration
	// RescueAfter is how long a job of a node that died stays claimed before another
	// node works it (1 min when zero).
	RescueAfter time.Duration
	// InsertOnly: this client inserts jobs but never works them.
	InsertOnly bool
	Logger     *slog.Logger
}

// queue is River's client of one dialect.
type queue struct {
	insert func(ctx context.Context, tx txn, args runArgs, at time.Time) error
	start  func(ctx context.Context) error
	stop   func(ctx context.Context) error
}

var uniqueStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}

func (q *queue) insertTx(ctx context.Context, tx txn, args runArgs, at time.Time) error {
	if err := q.insert(ctx, tx, args, at); err != nil {
		return fmt.Errorf("insert campaign job %d/%d: %w", args.CampaignID, args.ConnectionID, err)
	}
	return nil
}

func insertOpts(at time.Time) *river.InsertOpts {
	return &river.InsertOpts{Queue: queueName, ScheduledAt: at, MaxAttempts: 25,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: uniqueStates}}
}

func newQueue(d *db.DB, cfg JobsConfig, w river.Worker[runArgs]) (*queue, error) {
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, w); err != nil {
		return nil, fmt.Errorf("campaign jobs: %w", err)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(discard{}, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	rescue := cmp.Or(cfg.RescueAfter, time.Minute)
	rc := &river.Config{
		ID:                   cfg.Node,
		Logger:               logger,
		RescueStuckJobsAfter: rescue,
		FetchPollInterval:    cmp.Or(cfg.PollInterval, 500*time.Millisecond),
		JobTimeout:           -1,
	}
	if rc.FetchPollInterval < 100*time.Millisecond {
		rc.FetchCooldown = rc.FetchPollInterval
	}
	if !cfg.InsertOnly {
		rc.Queues = map[string]river.QueueConfig{queueName: {MaxWorkers: cmp.Or(cfg.Workers, 50)}}
		rc.Workers = workers
	}
	switch d.Dialect {
	case db.Postgres:
		c, err := river.NewClient(riverpgxv5.New(d.Pool), rc)
		if err != nil {
			return nil, fmt.Errorf("campaign jobs: %w", err)
		}
		return &queue{
			insert: func(ctx context.Context, tx txn, args runArgs, at time.Time) error {
				_, err := c.InsertTx(ctx, tx.raw().(pgx.Tx), args, insertOpts(at))
				return err
			},
			start: c.Start, stop: c.Stop,
		}, nil
	default:
		rc.PollOnly = true
		c, err := river.NewClient(riversqlite.New(d.SQL), rc)
		if err != nil {
			return nil, fmt.Errorf("campaign jobs: %w", err)
		}
		return &queue{
			insert: func(ctx context.Context, tx txn, args runArgs, at time.Time) error {
				_, err := c.InsertTx(ctx, tx.raw().(*sql.Tx), args, insertOpts(at))
				return err
			},
			start: c.Start, stop: c.Stop,
		}, nil
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// runWorker works campaign.run jobs: it sends a connection's due sends of one
// campaign until the next send is more than a moment away, then snoozes the job until
// then (a paced campaign holds no worker between sends), and ends it when the
// connection has nothing left to send or the campaign is paused or cancelled.
type runWorker struct {
	river.WorkerDefaults[runArgs]
	s *Store
}

// sliceBudget is how long one job run sends before it gives its worker back (snoozed
// until now: River hands it out again after its scheduler's next pass, a pause of a
// few seconds that a longer slice makes rare on an unpaced campaign). It stays under
// every River client's RescueStuckJobsAfter (1 min): the rescuer of whichever client
// leads (campaigns, schedule or flow timers share river_job) must never find a live
// run stuck.
const sliceBudget = 45 * time.Second

// jobTimeout bounds one run (a slice plus the step in progress). The clients run
// with JobTimeout -1, and River's rescuer never rescues a job whose timeout is
// infinite: without a finite one, the job of a node killed mid-run stayed running
// for ever when the campaign client led the maintenance.
const jobTimeout = 3 * time.Minute

// Timeout implements river.Worker: see jobTimeout.
func (w *runWorker) Timeout(*river.Job[runArgs]) time.Duration { return jobTimeout }

// Work implements river.Worker.
func (w *runWorker) Work(ctx context.Context, job *river.Job[runArgs]) error {
	a := job.Args
	started := time.Now()
	for {
		res, err := w.s.Step(ctx, a.CompanyID, a.CampaignID, a.ConnectionID)
		if err != nil {
			return err
		}
		if res.Done {
			return nil
		}
		wait := res.Next.Sub(w.s.cfg.Clock.Now())
		if wait > 2*time.Second || time.Since(started) > sliceBudget {
			return river.JobSnooze(max(wait, 0))
		}
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
	}
}
