package campaign

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"atende/persistence/jobs"
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

// defaultWorkers is how many (campaign, connection) jobs a node works at once. A job
// mostly waits for its next send time, snoozed, not holding a worker.
const defaultWorkers = 50

var uniqueStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}

// insertTx inserts the job of a lane in tx, due at at; a lane whose job waits or runs
// keeps it (unique by its arguments in those states).
func (s *Store) insertTx(ctx context.Context, tx txn, args runArgs, at time.Time) error {
	_, err := s.jobs.InsertTx(ctx, tx.raw(), args, &river.InsertOpts{Queue: queueName, ScheduledAt: at, MaxAttempts: 25,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: uniqueStates}})
	if err != nil {
		return fmt.Errorf("insert campaign job %d/%d: %w", args.CampaignID, args.ConnectionID, err)
	}
	return nil
}

// Kinds is the campaign job kind for the node's River client (package jobs): the
// campaigns' queue, Config.Workers jobs at once, the run worker.
func (s *Store) Kinds() jobs.Kinds {
	return jobs.Kinds{Queue: queueName, Workers: cmp.Or(s.cfg.Workers, defaultWorkers), Register: func(w *river.Workers) error {
		return river.AddWorkerSafely(w, &runWorker{s: s})
	}}
}

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
// the River client's RescueStuckJobsAfter (1 min), so the rescuer never finds a live
// run stuck.
const sliceBudget = 45 * time.Second

// jobTimeout bounds one run (a slice plus the step in progress). The node's client
// runs with JobTimeout -1, and River's rescuer never rescues a job whose timeout is
// infinite: without a finite one, the job of a node killed mid-run stayed running
// for ever.
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
