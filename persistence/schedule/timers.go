package schedule

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"atende/persistence/db"
	"atende/persistence/jobs"
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
	MaxAttempts = jobs.MaxAttempts
	// defaultWorkers is how many fires a node runs at once. River claims at most the
	// free workers' worth of due jobs per fetch and fetches at most every
	// FetchCooldown (50 ms here, see pollInterval), so this bounds a node at about
	// twenty times as many fires a second: 200 leaves room above the 1,000/s goal of
	// B9 (docs/benchmarks.md).
	// A fire mostly waits (database, the ticket actor), so idle workers cost little.
	defaultWorkers = 200
	// pollInterval is how often a node looks for schedules that fell due: a due
	// timer notifies nobody, so half of it is the mean lateness a quiet node adds
	// (B9). Twenty small indexed reads a second are its cost.
	pollInterval = 50 * time.Millisecond
)

// Kinds is the fire job kind for the node's River client (package jobs): the
// schedules' queue, Config.Workers fires at once, the fire worker.
func (s *Scheduler) Kinds() jobs.Kinds {
	return jobs.Kinds{Queue: queueName, Workers: cmp.Or(s.cfg.Workers, defaultWorkers), PollInterval: pollInterval,
		Register: func(w *river.Workers) error {
			return river.AddWorkerSafely(w, &fireWorker{s: s})
		}}
}

// insertTx inserts the fire job of schedule id of companyID in tx, due at at.
func (s *Scheduler) insertTx(ctx context.Context, tx txn, companyID, id int64, at time.Time) (int64, error) {
	res, err := s.jobs.InsertTx(ctx, tx.raw(), fireArgs{CompanyID: companyID, ScheduleID: id},
		&river.InsertOpts{Queue: queueName, ScheduledAt: at, MaxAttempts: MaxAttempts})
	if err != nil {
		return 0, fmt.Errorf("insert timer of schedule %d: %w", id, err)
	}
	return res.Job.ID, nil
}

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
