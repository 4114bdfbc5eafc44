package groups

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"atende/engine"
	"atende/persistence/jobs"
)

// Queue is the River queue of the group batches' jobs.
const Queue = "groups"

// CreateArgs is the durable job that creates the groups of one batch, one by one. It
// is unique by batch while waiting or running, so a catch-up at a node start inserts
// nothing for a batch whose job exists.
type CreateArgs struct {
	CompanyID engine.ID `json:"companyId"`
	BatchID   engine.ID `json:"batchId"`
}

// Kind implements river.JobArgs.
func (CreateArgs) Kind() string { return "groups.create" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (CreateArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: 25, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateRetryable, rivertype.JobStateScheduled,
	}}}
}

// Kinds is the job kind for the node's River client (package jobs). Batches are few
// and each is a short sequence of WhatsApp round trips: two at a time per node.
func (s *Store) Kinds() jobs.Kinds {
	return jobs.Kinds{Queue: Queue, Workers: 2, Register: func(w *river.Workers) error {
		return river.AddWorkerSafely(w, &createWorker{s: s})
	}}
}

// createWorker works CreateArgs jobs.
type createWorker struct {
	river.WorkerDefaults[CreateArgs]
	s *Store
}

// A run of the job works for at most jobSlice and then snoozes for no time (the next
// run follows at once), so a live run never lasts its jobTimeout. The timeout is what
// lets River rescue the job of a node that died mid-batch: without one (the node's
// client has none, JobTimeout -1) River never takes a running job back, and the batch's catch-up
// insert is skipped as a duplicate of that running job.
const (
	jobSlice   = 45 * time.Second
	jobTimeout = 3 * time.Minute
)

// Timeout implements river.Worker.
func (w *createWorker) Timeout(*river.Job[CreateArgs]) time.Duration { return jobTimeout }

// Work implements river.Worker: Step until the batch is done or the run's slice is
// used; a temporary failure (the connection is down) snoozes the job for
// Config.Retry, without using up its River attempts.
func (w *createWorker) Work(ctx context.Context, job *river.Job[CreateArgs]) error {
	for end := time.Now().Add(jobSlice); ; {
		if time.Now().After(end) {
			return river.JobSnooze(0)
		}
		done, err := w.s.Step(ctx, job.Args.CompanyID, job.Args.BatchID)
		if engine.CodeOf(err) == engine.ErrUnavailable {
			w.s.cfg.Log.Warn().Err(err).Int64("batch", job.Args.BatchID).Msg("group creation waits for the connection")
			return river.JobSnooze(w.s.cfg.Retry)
		}
		if err != nil || done {
			return err
		}
	}
}

// pending is the group a step works on.
type pending struct {
	batch    engine.GroupBatch
	seq      int
	name     string
	key      string
	attempts int // creations begun before this one
}

// Step creates the batch's next pending group and records the outcome. done is true
// when no group is pending (the batch is then finished). An error with code
// ErrUnavailable is temporary: the group stays pending and is tried again.
func (s *Store) Step(ctx context.Context, companyID, batchID engine.ID) (done bool, err error) {
	var p *pending
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		b, err := get(ctx, tx, companyID, batchID)
		if err != nil {
			return err
		}
		var it pending
		err = tx.QueryRowContext(ctx, `SELECT seq, name, create_key, attempts FROM group_items
			WHERE batch_id = $1 AND status = $2 ORDER BY seq LIMIT 1`, batchID, engine.GroupPending).
			Scan(&it.seq, &it.name, &it.key, &it.attempts)
		if errors.Is(err, sql.ErrNoRows) {
			if b.Status == engine.GroupBatchRunning {
				_, err = tx.ExecContext(ctx, `UPDATE group_batches SET status = $1, updated_at = $2 WHERE id = $3`,
					engine.GroupBatchFinished, micros(s.cfg.Clock.Now()), batchID)
				if err != nil {
					return fmt.Errorf("finish group batch %d: %w", batchID, err)
				}
				b.Status = engine.GroupBatchFinished
				p = &pending{batch: b, seq: -1}
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("next group of batch %d: %w", batchID, err)
		}
		// The intent: from here on a crash may leave a group on WhatsApp whose
		// outcome is not recorded, and the next attempt looks for it first.
		if _, err := tx.ExecContext(ctx, `UPDATE group_items SET attempts = attempts + 1, updated_at = $1
			WHERE batch_id = $2 AND seq = $3`, micros(s.cfg.Clock.Now()), batchID, it.seq); err != nil {
			return fmt.Errorf("record the attempt of group %d of batch %d: %w", it.seq, batchID, err)
		}
		it.batch = b
		p = &it
		return nil
	})
	if engine.CodeOf(err) == engine.ErrNoGroupBatchFound {
		return true, nil // the batch is gone (its tenant was removed)
	}
	if err != nil || p == nil {
		return true, err
	}
	if p.seq < 0 {
		s.changed(ctx, companyID, batchID)
		return true, nil
	}
	res, cerr := s.cfg.Maker.CreateGroup(ctx, companyID, p.batch.ConnectionID, engine.GroupRequest{
		Key: p.key, Name: p.name, Admins: []string{p.batch.Admin1, p.batch.Admin2}, Resume: p.attempts > 0,
		MediaPath: p.batch.MediaPath, MediaType: p.batch.MediaType})
	code := engine.CodeOf(cerr)
	temporary := cerr != nil && (code == engine.ErrUnavailable || code == engine.ErrInternal || code == "")
	if temporary && p.attempts+1 < s.cfg.MaxAttempts {
		return false, engine.Wrap(engine.ErrUnavailable, fmt.Errorf("create group %d of batch %d: %w", p.seq, batchID, cerr))
	}
	if err := s.record(ctx, batchID, p.seq, res, cerr); err != nil {
		return false, err
	}
	s.changed(ctx, companyID, batchID)
	return false, nil
}

// record writes the outcome of group seq, only on a row still pending (a second run
// of the same group, rescued from a stalled node, records nothing twice), and moves
// the batch's counters in the same transaction.
func (s *Store) record(ctx context.Context, batchID engine.ID, seq int, res engine.GroupResult, cerr error) error {
	now := micros(s.cfg.Clock.Now())
	return s.db.Tx(ctx, func(tx *sql.Tx) error {
		var (
			r   sql.Result
			err error
			col = "created_count"
		)
		if cerr == nil {
			r, err = tx.ExecContext(ctx, `UPDATE group_items SET status = $1, jid = $2, invite_link = $3, participants = $4,
				updated_at = $5 WHERE batch_id = $6 AND seq = $7 AND status = $8`, engine.GroupCreated, res.JID, res.InviteLink,
				res.Participants, now, batchID, seq, engine.GroupPending)
		} else {
			col = "failed_count"
			msg := cerr.Error()
			if len(msg) > 500 {
				msg = msg[:500]
			}
			r, err = tx.ExecContext(ctx, `UPDATE group_items SET status = $1, error = $2, updated_at = $3
				WHERE batch_id = $4 AND seq = $5 AND status = $6`, engine.GroupError, msg, now, batchID, seq, engine.GroupPending)
		}
		if err != nil {
			return fmt.Errorf("record group %d of batch %d: %w", seq, batchID, err)
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE group_batches SET `+col+` = `+col+` + 1, updated_at = $1 WHERE id = $2`, now, batchID); err != nil {
			return fmt.Errorf("count group %d of batch %d: %w", seq, batchID, err)
		}
		return nil
	})
}

// changed publishes the batch as it is now.
func (s *Store) changed(ctx context.Context, companyID, batchID engine.ID) {
	if s.cfg.OnChange == nil {
		return
	}
	b, err := s.Get(ctx, companyID, batchID)
	if err != nil {
		s.cfg.Log.Warn().Err(err).Int64("batch", batchID).Msg("group batch progress not published")
		return
	}
	s.cfg.OnChange(b)
}
