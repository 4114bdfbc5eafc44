package jobs

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
	"github.com/riverqueue/river/rivertype"

	"atende/persistence/db"
)

// Kinds are one package's job kinds as the node's client works them.
type Kinds struct {
	// Queue is the River queue the kinds' jobs are inserted into (their InsertOpts
	// name it); each package has its own, so that one kind's backlog (a campaign of
	// 100,000 contacts) never holds the workers another's due job needs.
	Queue string
	// Workers is how many of the queue's jobs one node works at once (at least 1).
	Workers int
	// Register adds the kinds' workers, with river.AddWorkerSafely.
	Register func(*river.Workers) error
	// Periodic are periodic jobs of the kinds; River's leader inserts them.
	Periodic []*river.PeriodicJob
	// PollInterval, when set, is how often this queue looks for jobs that fell due,
	// in place of Config.PollInterval: a queue of timers whose lateness counts (the
	// schedules') polls more often than the others, and only it pays for that.
	PollInterval time.Duration
}

// Config configures a node's client. The zero value of every field has a default.
type Config struct {
	// Node names the client (leader election, attempted_by, logs); "" lets River
	// choose.
	Node string
	// PollInterval is how often the node looks for jobs that fell due besides River's
	// notifications, in queues without their own (Kinds.PollInterval); 0 means
	// DefaultPollInterval. A timer falling due notifies nobody, so this bounds the
	// lateness of a quiet queue. Tests shorten it.
	PollInterval time.Duration
	// RescueAfter is how long a job being worked by a node that died stays claimed
	// before the leader's rescuer considers it; 0 means 1 minute. A job is retried
	// only once its worker's Timeout has passed too.
	RescueAfter time.Duration
	// Logger receives River's logs; nil discards all but errors.
	Logger *slog.Logger
	// Kinds are the job kinds this node works. None makes an insert-only client.
	Kinds []Kinds
}

// MaxAttempts is how often a failing job is tried when its InsertOpts say nothing
// (River's backoff grows as attempts⁴ seconds: the 12th try comes about 17 hours
// after the first).
const MaxAttempts = 12

// Client is River's client of one dialect behind a dialect-neutral face. Transactions
// are the driver's own: pgx.Tx on PostgreSQL, *sql.Tx on SQLite.
type Client struct {
	// static after New; exactly one is set
	pg   *river.Client[pgx.Tx]
	lite *river.Client[*sql.Tx]
	// works: the client has workers and may be started
	works bool
}

// New builds the client of d's dialect that works cfg.Kinds. Its jobs run once Start
// is called.
func New(d *db.DB, cfg Config) (*Client, error) {
	rc, err := riverConfig(cfg)
	if err != nil {
		return nil, err
	}
	c := &Client{works: rc.Workers != nil}
	switch d.Dialect {
	case db.Postgres:
		c.pg, err = river.NewClient(riverpgxv5.New(d.Pool), rc)
	default:
		// SQLite has no LISTEN/NOTIFY: the client polls.
		rc.PollOnly = true
		c.lite, err = river.NewClient(riversqlite.New(d.SQL), rc)
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return c, nil
}

// NewInserter builds an insert-only client of d: it inserts and cancels jobs, works
// none, and is never started.
func NewInserter(d *db.DB) (*Client, error) { return New(d, Config{}) }

// InserterFor is given when it is set (the node's one inserter, shared by every
// package that inserts jobs), else a new insert-only client of d (a test's store).
func InserterFor(d *db.DB, given *Client) (*Client, error) {
	if given != nil {
		return given, nil
	}
	return NewInserter(d)
}

// DefaultPollInterval is Config.PollInterval's default, River's own: campaign lanes,
// flow timers, group batches and rezones are late by half a second on average. The
// schedules' queue, whose lateness counts (B9: 1 s measured a p99 of 1.1 s at 1,000
// fires/s), polls on its own interval. Every poll of every queue is a query on every
// node: at 200 ms the four other queues cost each node twenty a second, idle.
const DefaultPollInterval = time.Second

// riverFetchCooldown is River's default least time between two fetches of a queue.
const riverFetchCooldown = 100 * time.Millisecond

// riverConfig is the River configuration of a node with cfg.
func riverConfig(cfg Config) (*river.Config, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(discard{}, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	rc := &river.Config{
		ID:                   cfg.Node,
		Logger:               logger,
		MaxAttempts:          MaxAttempts,
		RescueStuckJobsAfter: cmp.Or(cfg.RescueAfter, time.Minute),
		FetchPollInterval:    cmp.Or(cfg.PollInterval, DefaultPollInterval),
		// Each worker bounds its own run (its Timeout); the rescuer retries a dead
		// node's job only when that timeout is finite and has passed.
		JobTimeout: -1,
	}
	if rc.FetchPollInterval < 100*time.Millisecond {
		rc.FetchCooldown = rc.FetchPollInterval
	}
	if len(cfg.Kinds) == 0 {
		return rc, nil
	}
	workers := river.NewWorkers()
	rc.Queues = make(map[string]river.QueueConfig, len(cfg.Kinds))
	for _, k := range cfg.Kinds {
		if k.Queue == "" || k.Register == nil {
			return nil, fmt.Errorf("jobs: queue %q: a queue and a worker are required", k.Queue)
		}
		if _, dup := rc.Queues[k.Queue]; dup {
			return nil, fmt.Errorf("jobs: queue %q registered twice", k.Queue)
		}
		q := river.QueueConfig{MaxWorkers: max(k.Workers, 1)}
		if k.PollInterval > 0 {
			q.FetchPollInterval = k.PollInterval
			q.FetchCooldown = min(k.PollInterval, cmp.Or(rc.FetchCooldown, riverFetchCooldown))
		}
		rc.Queues[k.Queue] = q
		if err := k.Register(workers); err != nil {
			return nil, fmt.Errorf("jobs: queue %q: %w", k.Queue, err)
		}
		rc.PeriodicJobs = append(rc.PeriodicJobs, k.Periodic...)
	}
	rc.Workers = workers
	return rc, nil
}

// InsertTx inserts a job in tx (pgx.Tx or *sql.Tx, the dialect's), so it exists if
// and only if tx commits.
func (c *Client) InsertTx(ctx context.Context, tx any, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	var (
		res *rivertype.JobInsertResult
		err error
	)
	switch t := tx.(type) {
	case pgx.Tx:
		if c.pg == nil {
			return nil, errors.New("jobs: a pgx transaction on a SQLite client")
		}
		res, err = c.pg.InsertTx(ctx, t, args, opts)
	case *sql.Tx:
		if c.lite == nil {
			return nil, errors.New("jobs: a database/sql transaction on a PostgreSQL client")
		}
		res, err = c.lite.InsertTx(ctx, t, args, opts)
	default:
		return nil, fmt.Errorf("jobs: transaction of type %T", tx)
	}
	if err != nil {
		return nil, fmt.Errorf("insert %s job: %w", args.Kind(), err)
	}
	return res, nil
}

// Insert inserts a job in a transaction of its own.
func (c *Client) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	var (
		res *rivertype.JobInsertResult
		err error
	)
	if c.pg != nil {
		res, err = c.pg.Insert(ctx, args, opts)
	} else {
		res, err = c.lite.Insert(ctx, args, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("insert %s job: %w", args.Kind(), err)
	}
	return res, nil
}

// InsertMany inserts jobs in batches of River's own (seeding benchmarks).
func (c *Client) InsertMany(ctx context.Context, params []river.InsertManyParams) error {
	var err error
	if c.pg != nil {
		_, err = c.pg.InsertMany(ctx, params)
	} else {
		_, err = c.lite.InsertMany(ctx, params)
	}
	if err != nil {
		return fmt.Errorf("insert jobs: %w", err)
	}
	return nil
}

// CancelTx cancels job id in tx; a job that is gone is not an error.
func (c *Client) CancelTx(ctx context.Context, tx any, id int64) error {
	if id == 0 {
		return nil
	}
	var err error
	switch t := tx.(type) {
	case pgx.Tx:
		if c.pg == nil {
			return errors.New("jobs: a pgx transaction on a SQLite client")
		}
		_, err = c.pg.JobCancelTx(ctx, t, id)
	case *sql.Tx:
		if c.lite == nil {
			return errors.New("jobs: a database/sql transaction on a PostgreSQL client")
		}
		_, err = c.lite.JobCancelTx(ctx, t, id)
	default:
		return fmt.Errorf("jobs: transaction of type %T", tx)
	}
	if err != nil && !errors.Is(err, river.ErrNotFound) {
		return fmt.Errorf("cancel job %d: %w", id, err)
	}
	return nil
}

// Start starts working this node's jobs (and, when this client leads, River's
// maintenance: rescuer, scheduler, periodic jobs).
func (c *Client) Start(ctx context.Context) error {
	if !c.works {
		return errors.New("jobs: an insert-only client is never started")
	}
	var err error
	if c.pg != nil {
		err = c.pg.Start(ctx)
	} else {
		err = c.lite.Start(ctx)
	}
	if err != nil {
		return fmt.Errorf("start jobs: %w", err)
	}
	return nil
}

// Stop stops fetching jobs and waits for those in progress to end (or ctx).
func (c *Client) Stop(ctx context.Context) error {
	if !c.works {
		return nil
	}
	if c.pg != nil {
		return c.pg.Stop(ctx)
	}
	return c.lite.Stop(ctx)
}

// discard is an io.Writer that drops everything.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
