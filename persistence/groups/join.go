package groups

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"atende/engine"
)

// Join counts one /groupjoin visitor of the batch with token and returns the invite
// link of the group the visitor goes to: the first created group, in sequence, with
// room (its participants at creation plus the visitors sent to it stay under the
// batch's maximum). The count is a conditional UPDATE (joined < room), so two
// visitors racing for a group's last seat raise it once: the loser moves on to the
// next group. ErrNoGroupBatchFound for an unknown token; ErrGroupsFull when no
// created group has room (every group full, or none created yet).
func (s *Store) Join(ctx context.Context, token string) (string, error) {
	if token == "" || len(token) > 64 {
		return "", engine.E(engine.ErrNoGroupBatchFound)
	}
	var link string
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		var batchID engine.ID
		var max int
		err := tx.QueryRowContext(ctx, `SELECT id, max_participants FROM group_batches WHERE token = $1`, token).Scan(&batchID, &max)
		if errors.Is(err, sql.ErrNoRows) {
			return engine.E(engine.ErrNoGroupBatchFound)
		}
		if err != nil {
			return fmt.Errorf("read group batch by token: %w", err)
		}
		// Each pass takes the first group with room as read; its UPDATE re-checks the
		// room, and on a lost race (PostgreSQL: another visitor's transaction raised it
		// first) the next pass reads again. Bounded by the batch's size.
		for range engine.MaxGroupsPerBatch + 1 {
			var seq int
			err := tx.QueryRowContext(ctx, `SELECT seq, invite_link FROM group_items
				WHERE batch_id = $1 AND status = $2 AND participants + joined < $3 ORDER BY seq LIMIT 1`,
				batchID, engine.GroupCreated, max).Scan(&seq, &link)
			if errors.Is(err, sql.ErrNoRows) {
				return engine.E(engine.ErrGroupsFull)
			}
			if err != nil {
				return fmt.Errorf("group with room of batch %d: %w", batchID, err)
			}
			r, err := tx.ExecContext(ctx, `UPDATE group_items SET joined = joined + 1
				WHERE batch_id = $1 AND seq = $2 AND participants + joined < $3`, batchID, seq, max)
			if err != nil {
				return fmt.Errorf("count a visitor of group %d of batch %d: %w", seq, batchID, err)
			}
			if n, _ := r.RowsAffected(); n == 1 {
				if _, err := tx.ExecContext(ctx, `UPDATE group_batches SET joined_count = joined_count + 1 WHERE id = $1`, batchID); err != nil {
					return fmt.Errorf("count a visitor of batch %d: %w", batchID, err)
				}
				return nil
			}
		}
		return engine.E(engine.ErrGroupsFull)
	})
	if err != nil {
		return "", err
	}
	return link, nil
}
