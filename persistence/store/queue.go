package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"atende/engine"
	"atende/persistence/db"
)

// Queues implements engine.QueueStore on either dialect. A tenant has a handful of
// queues: List reads them all and sorts by folded name in Go, so the order is the same
// on both dialects whatever the database collation.
//
// Safe for concurrent use.
type Queues struct {
	refBase
}

var _ engine.QueueStore = (*Queues)(nil)

// NewQueues returns the queue store of d; a nil clock is the system clock.
func NewQueues(d *db.DB, clock engine.Clock) *Queues {
	return &Queues{refBase: newRefBase(d, clock)}
}

const queueCols = `id, company_id, name, color, greeting_message, start_work, end_work, absence_message, nps,
	encouraging_message, url, created_at, updated_at, rating_question`

func scanQueue(row refScanner) (engine.Queue, error) {
	var q engine.Queue
	err := row.Scan(&q.ID, &q.CompanyID, &q.Name, &q.Color, &q.GreetingMessage, &q.StartWork, &q.EndWork,
		&q.AbsenceMessage, &q.NPS, &q.EncouragingMessage, &q.URL, refTime{&q.CreatedAt}, refTime{&q.UpdatedAt}, &q.RatingQuestion)
	return q, err
}

// List implements engine.QueueStore.
func (s *Queues) List(ctx context.Context, companyID engine.ID) ([]engine.Queue, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT `+queueCols+` FROM queues WHERE company_id = $1`, companyID)
	if err != nil {
		return nil, fmt.Errorf("list queues of %d: %w", companyID, err)
	}
	defer rows.Close()
	out := []engine.Queue{}
	for rows.Next() {
		q, err := scanQueue(rows)
		if err != nil {
			return nil, fmt.Errorf("list queues of %d: %w", companyID, err)
		}
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list queues of %d: %w", companyID, err)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := refFold(out[i].Name), refFold(out[j].Name)
		if a != b {
			return a < b
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Get implements engine.QueueStore.
func (s *Queues) Get(ctx context.Context, companyID, id engine.ID) (engine.Queue, error) {
	return s.get(ctx, s.db.SQL, companyID, id)
}

func (s *Queues) get(ctx context.Context, q refQuerier, companyID, id engine.ID) (engine.Queue, error) {
	out, err := scanQueue(q.QueryRowContext(ctx, `SELECT `+queueCols+` FROM queues WHERE id = $1 AND company_id = $2`,
		id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return out, engine.E(engine.ErrNoQueueFound)
	}
	if err != nil {
		return out, fmt.Errorf("get queue %d: %w", id, err)
	}
	return out, nil
}

// count is the number of the tenant's queues.
func (s *Queues) count(ctx context.Context, tx *sql.Tx, companyID engine.ID) (int, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM queues WHERE company_id = $1`, companyID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count queues of %d: %w", companyID, err)
	}
	return n, nil
}

// Create implements engine.QueueStore: the greeting is required when the tenant
// already has a queue.
func (s *Queues) Create(ctx context.Context, companyID engine.ID, in engine.QueueInput) (engine.Queue, error) {
	now := s.now()
	var out engine.Queue
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		n, err := s.count(ctx, tx, companyID)
		if err != nil {
			return err
		}
		in.GreetingRequired = n >= 1
		in, err := engine.ValidateQueue(in)
		if err != nil {
			return err
		}
		var id engine.ID
		err = tx.QueryRowContext(ctx, `INSERT INTO queues (company_id, name, color, greeting_message, start_work,
			end_work, absence_message, nps, encouraging_message, url, created_at, updated_at, rating_question)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12) RETURNING id`,
			companyID, in.Name, in.Color, in.GreetingMessage, in.StartWork, in.EndWork, in.AbsenceMessage, in.NPS,
			in.EncouragingMessage, in.URL, s.ts(now), in.RatingQuestion).Scan(&id)
		if db.IsUniqueViolation(err) {
			return engine.Wrap(engine.ErrQueueColorAlreadyExists, err)
		}
		if err != nil {
			return fmt.Errorf("insert queue: %w", err)
		}
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// Update implements engine.QueueStore: the greeting is required when the tenant has
// more than one queue. A queue of another tenant is not found before its input is
// validated.
func (s *Queues) Update(ctx context.Context, companyID, id engine.ID, in engine.QueueInput) (engine.Queue, error) {
	now := s.now()
	var out engine.Queue
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := s.get(ctx, tx, companyID, id); err != nil {
			return err
		}
		n, err := s.count(ctx, tx, companyID)
		if err != nil {
			return err
		}
		in.GreetingRequired = n >= 2
		in, err := engine.ValidateQueue(in)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE queues SET name = $1, color = $2, greeting_message = $3,
			start_work = $4, end_work = $5, absence_message = $6, nps = $7, encouraging_message = $8, url = $9,
			updated_at = $10, rating_question = $13 WHERE id = $11 AND company_id = $12`,
			in.Name, in.Color, in.GreetingMessage, in.StartWork, in.EndWork, in.AbsenceMessage, in.NPS,
			in.EncouragingMessage, in.URL, s.ts(now), id, companyID, in.RatingQuestion)
		if db.IsUniqueViolation(err) {
			return engine.Wrap(engine.ErrQueueColorAlreadyExists, err)
		}
		if err != nil {
			return fmt.Errorf("update queue %d: %w", id, err)
		}
		out, err = s.get(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// Delete implements engine.QueueStore. Rows that reference the queue (users' queue
// links, connections' queues) go with it by their foreign keys' ON DELETE.
func (s *Queues) Delete(ctx context.Context, companyID, id engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM queues WHERE id = $1 AND company_id = $2`, id, companyID)
	if err != nil {
		return fmt.Errorf("delete queue %d: %w", id, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("delete queue %d: %w", id, err)
	}
	if n == 0 {
		return engine.E(engine.ErrNoQueueFound)
	}
	return nil
}
