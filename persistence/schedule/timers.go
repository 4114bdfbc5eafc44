package schedule

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"atende/persistence/db"
)

// fireArgs is the payload of the job that fires one schedule.
type fireArgs struct {
	CompanyID  int64 `json:"companyId"`
	ScheduleID int64 `json:"scheduleId"`
}

// Kind names the job kind in river_job.
func (fireArgs) Kind() string { return "schedule.fire" }

// Queue and attempt figures of the timers.
const (
	// queueName is the River queue schedules fire on.
	queueName = "schedules"
	// MaxAttempts is how often a failing fire is tried (River's backoff grows as
	// attempts^4 seconds: the last of 12 tries comes about 17 hours after the first)
	// before the schedule is marked error.
	MaxAttempts = 12
	// defaultWorkers is how many fires a node runs at once. River claims at most the
	// free workers' worth of due jobs per fetch and fetches at most every
	// FetchCooldown (100 ms), so this bounds a node at about ten times as many fires
	// a second: 200 leaves room above the 1,000/s goal of B9 (docs/benchmarks.md).
	// A fire mostly waits (database, the ticket actor), so idle workers cost little.
	defaultWorkers = 200
	// defaultPollInterval is how often a node looks for jobs that fell due. A timer
	// falling due sends no notification, so this bounds the lateness of a quiet
	// queue: River's 1 s default measured a lateness p99 of 1.1 s at 1,000 fires/s
	// (B9), over the 1 s goal. The look is one indexed query.
	defaultPollInterval = 200 * time.Millisecond
)

// queue is River's client of one dialect behind a dialect-neutral face.
type queue interface {
	insertTx(ctx context.Context, tx txn, args fireArgs, at time.Time) (int64, error)
	cancelTx(ctx context.Context, tx txn, jobID int64) error
	insert(ctx context.Context, args river.JobArgs) (bool, error)
	start(ctx context.Context) error
	stop(ctx context.Context) error
}

type riverQueue[TTx any] struct {
	client *river.Client[TTx]
	// txOf converts our transaction to the driver's.
	txOf func(txn) TTx
}

func (q riverQueue[TTx]) insertTx(ctx context.Context, tx txn, args fireArgs, at time.Time) (int64, error) {
	res, err := q.client.InsertTx(ctx, q.txOf(tx), args, &river.InsertOpts{Queue: queueName, ScheduledAt: at, MaxAttempts: MaxAttempts})
	if err != nil {
		return 0, fmt.Errorf("insert timer of schedule %d: %w", args.ScheduleID, err)
	}
	return res.Job.ID, nil
}

func (q riverQueue[TTx]) cancelTx(ctx context.Context, tx txn, jobID int64) error {
	if jobID == 0 {
		return nil
	}
	_, err := q.client.JobCancelTx(ctx, q.txOf(tx), jobID)
	if err != nil && !errors.Is(err, river.ErrNotFound) {
		return fmt.Errorf("cancel timer %d: %w", jobID, err)
	}
	return nil
}

// insert inserts a job of another kind with the insert options its args give; false
// when River skipped it as a duplicate of a unique job.
func (q riverQueue[TTx]) insert(ctx context.Context, args river.JobArgs) (bool, error) {
	res, err := q.client.Insert(ctx, args, nil)
	if err != nil {
		return false, fmt.Errorf("insert %s job: %w", args.Kind(), err)
	}
	return !res.UniqueSkippedAsDuplicate, nil
}

func (q riverQueue[TTx]) start(ctx context.Context) error { return q.client.Start(ctx) }
func (q riverQueue[TTx]) stop(ctx context.Context) error  { return q.client.Stop(ctx) }

// TimersConfig configures Timers. The zero value of every field but Node has a default.
type TimersConfig struct {
	// Node names this node's River client (leader election, logs); "" lets River
	// choose.
	Node string
	// Workers is how many schedules one node fires at once; 0 means defaultWorkers.
	Workers int
	// PollInterval is how often the node looks for due jobs besides River's
	// notifications; 0 means defaultPollInterval. Tests shorten it.
	PollInterval time.Duration
	// RescueAfter is how long a job being worked by a node that died stays claimed
	// before another node retries it; 0 means 1 minute.
	RescueAfter time.Duration
	// Logger receives River's logs; nil discards all but errors.
	Logger *slog.Logger
	// InsertOnly makes the node insert and cancel timers but never fire them.
	InsertOnly bool
	// Jobs are the other kinds of durable jobs this node's River client works.
	Jobs []Job
}

// Job is a kind of durable job besides the schedules' fires (a dashboard rebuild, …),
// worked by the same River client: one client per node for every kind, so every kind
// gets River's claiming (one node per job), retries and rescue of stuck jobs. Insert
// such jobs with Scheduler.Insert.
type Job struct {
	// Queue is the River queue the kind's jobs go to (their InsertOpts name it).
	Queue string
	// Workers is how many of them one node works at once (at least 1).
	Workers int
	// Add registers the kind's worker, with river.AddWorkerSafely.
	Add func(*river.Workers) error
}

// newQueue builds the River client of d's dialect. work is the worker of fire jobs.
func newQueue(d *db.DB, cfg TimersConfig, work river.Worker[fireArgs]) (queue, error) {
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, work); err != nil {
		return nil, fmt.Errorf("timers: %w", err)
	}
	for _, j := range cfg.Jobs {
		if j.Queue == "" || j.Queue == queueName || j.Add == nil {
			return nil, fmt.Errorf("timers: job queue %q: a queue of its own and a worker are required", j.Queue)
		}
		if err := j.Add(workers); err != nil {
			return nil, fmt.Errorf("timers: %w", err)
		}
	}
	rc := riverConfig(cfg, workers)
	switch d.Dialect {
	case db.Postgres:
		c, err := river.NewClient(riverpgxv5.New(d.Pool), rc)
		if err != nil {
			return nil, fmt.Errorf("timers: %w", err)
		}
		return riverQueue[pgx.Tx]{client: c, txOf: func(t txn) pgx.Tx { return t.raw().(pgx.Tx) }}, nil
	default:
		// SQLite has one writer: River's own notifications do not exist there, so
		// the client polls (PollOnly).
		rc.PollOnly = true
		c, err := river.NewClient(riversqlite.New(d.SQL), rc)
		if err != nil {
			return nil, fmt.Errorf("timers: %w", err)
		}
		return riverQueue[*sql.Tx]{client: c, txOf: func(t txn) *sql.Tx { return t.raw().(*sql.Tx) }}, nil
	}
}

// riverConfig is the River client configuration of a node with cfg; workers runs the
// fire jobs (unused by an InsertOnly node).
func riverConfig(cfg TimersConfig, workers *river.Workers) *river.Config {
	n := cfg.Workers
	if n <= 0 {
		n = defaultWorkers
	}
	rescue := cfg.RescueAfter
	if rescue <= 0 {
		rescue = time.Minute
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(discard{}, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	rc := &river.Config{
		ID:                   cfg.Node,
		Logger:               logger,
		MaxAttempts:          MaxAttempts,
		RescueStuckJobsAfter: rescue,
		FetchPollInterval:    cmp.Or(cfg.PollInterval, defaultPollInterval),
		JobTimeout:           -1, // a fire is bounded by its own deadlines
	}
	if rc.FetchPollInterval < 100*time.Millisecond {
		rc.FetchCooldown = rc.FetchPollInterval
	}
	if !cfg.InsertOnly {
		rc.Queues = map[string]river.QueueConfig{queueName: {MaxWorkers: n}}
		for _, j := range cfg.Jobs {
			rc.Queues[j.Queue] = river.QueueConfig{MaxWorkers: max(j.Workers, 1)}
		}
		rc.Workers = workers
	}
	return rc
}

// discard is an io.Writer that drops everything.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Migrate creates or upgrades River's tables (river_job, river_leader, …) in d. It
// runs after d.Migrate, under the same PostgreSQL advisory lock (db.WithMigrationLock)
// so that nodes starting together migrate one at a time.
func Migrate(ctx context.Context, d *db.DB) error {
	return d.WithMigrationLock(ctx, func() error {
		var err error
		switch d.Dialect {
		case db.Postgres:
			var m *rivermigrate.Migrator[pgx.Tx]
			if m, err = rivermigrate.New(riverpgxv5.New(d.Pool), nil); err == nil {
				_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
			}
		default:
			var m *rivermigrate.Migrator[*sql.Tx]
			if m, err = rivermigrate.New(riversqlite.New(d.SQL), nil); err == nil {
				_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
			}
		}
		if err != nil {
			return fmt.Errorf("migrate river: %w", err)
		}
		return nil
	})
}
