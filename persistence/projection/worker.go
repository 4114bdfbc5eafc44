package projection

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// run is a projection's goroutine: read a page after the checkpoint, apply it, repeat;
// when caught up, wait for a commit, a Reset or the poll interval.
func (r *Runner) run(w *worker) {
	poll := time.NewTicker(r.cfg.PollInterval)
	defer poll.Stop()
	backoff := r.cfg.MinBackoff
	for r.ctx.Err() == nil {
		wake := r.src.Notify() // before reading, so no commit slips between the two
		r.mu.Lock()
		from := w.position
		r.mu.Unlock()

		events, err := r.src.ReadAll(r.ctx, from, r.cfg.BatchSize)
		if err != nil {
			err = fmt.Errorf("read after %d: %w", from, err)
		} else if len(events) > 0 {
			err = r.apply(w, from, events)
		}
		if err != nil {
			if r.ctx.Err() != nil {
				return
			}
			r.publish(w, from, err)
			w.log.Error().Err(err).Int64("position", from).Dur("retry_in", backoff).Msg("projection failed; retrying")
			if !r.pause(backoff, w.kick) {
				return
			}
			backoff = min(2*backoff, r.cfg.MaxBackoff)
			continue
		}
		backoff = r.cfg.MinBackoff
		if len(events) > 0 {
			continue
		}
		select {
		case <-wake:
		case <-w.kick:
		case <-poll.C:
		case <-r.ctx.Done():
			return
		}
	}
}

// pause waits d (cut short by a Reset) and reports whether the runner is still open.
func (r *Runner) pause(d time.Duration, kick <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-kick:
	case <-r.ctx.Done():
		return false
	}
	return true
}

// apply runs one batch in one transaction with its checkpoint and publishes the
// progress. If the checkpoint moved meanwhile, it adopts it instead.
func (r *Runner) apply(w *worker, from int64, events []engine.RecordedEvent) error {
	w.applyMu.Lock()
	defer w.applyMu.Unlock()
	name := w.p.Name()
	last := events[len(events)-1].Position
	var stored int64
	err := r.d.Tx(r.ctx, func(tx *sql.Tx) error {
		if err := relaxDurability(r.ctx, tx, r.d); err != nil {
			return err
		}
		var err error
		if stored, err = r.lockCheckpoint(r.ctx, tx, name); err != nil {
			return err
		}
		if stored != from {
			return errCheckpointMoved
		}
		if err := safeApply(r.ctx, w.p, tx, r, events); err != nil {
			return fmt.Errorf("apply positions %d..%d: %w", events[0].Position, last, err)
		}
		return r.saveCheckpoint(r.ctx, tx, name, last)
	})
	switch {
	case errors.Is(err, errCheckpointMoved):
		w.log.Debug().Int64("from", from).Int64("stored", stored).Msg("checkpoint moved elsewhere; adopting it")
		r.publish(w, stored, nil)
		return nil
	case err != nil:
		return err
	}
	r.publish(w, last, nil)
	return nil
}

// relaxDurability lets a projection's transaction commit without waiting for its
// WAL flush (PostgreSQL). A read model is derived data with its checkpoint in the same
// transaction: a crash can only lose a suffix of both together, and the runner applies
// that suffix again from the journal, which stays fully durable. So the journal's
// appends — the path every acknowledgement waits on — no longer queue behind the
// projections' fsyncs on the same disk.
func relaxDurability(ctx context.Context, tx *sql.Tx, d *db.DB) error {
	if d.Dialect != db.Postgres {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
		return fmt.Errorf("relax durability: %w", err)
	}
	return nil
}

// safeApply turns a panicking projection into an error, so it is retried like any
// other failure instead of taking the process down.
func safeApply(ctx context.Context, p Projection, tx *sql.Tx, r *Runner, events []engine.RecordedEvent) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return p.Apply(ctx, tx, r.d, events)
}
