package readmodel

import (
	"context"
	"fmt"
	"slices"

	"atende/engine"
)

// maxHeldBranches: a branch of the tickets assigned to me outside the queue filter
// (branch.outside) becomes one walk per queue up to this many queues; past it, it
// stays one walk of my tickets testing the queue.
const maxHeldBranches = 32

// expandHeld replaces every branch of bs with outside set by one walk per queue its
// user holds tickets of its status in, outside excluded: each walk is an equality
// seek of tickets_status_user_queue in list order, where the single walk of the
// user's tickets with "queue not in the filter" read every ticket the user holds in
// the filter's queues before finding one outside (30k index entries and heap rows for
// a supervisor holding 30k tickets).
func (s *call) expandHeld(ctx context.Context, company engine.ID, bs []branch) ([]branch, error) {
	if !slices.ContainsFunc(bs, func(b branch) bool { return b.outside != nil }) {
		return bs, nil
	}
	out := make([]branch, 0, len(bs))
	for _, b := range bs {
		if b.outside == nil {
			out = append(out, b)
			continue
		}
		held, err := s.heldQueues(ctx, company, b.status, b.user, maxHeldBranches+len(b.outside)+1)
		if err != nil {
			return nil, fmt.Errorf("queues of user %d's %s tickets: %w", b.user, b.status, err)
		}
		var qs []engine.ID
		for _, q := range held {
			if !slices.Contains(b.outside, q) {
				qs = append(qs, q)
			}
		}
		if len(qs) > maxHeldBranches {
			out = append(out, b)
			continue
		}
		for _, q := range qs {
			out = append(out, branch{status: b.status, byUser: true, user: b.user, byQueue: true, queue: q})
		}
	}
	return out, nil
}

// heldQueues is the distinct queues (0: none) of user's live tickets of status, up to
// limit of them, in ascending order: a loose index scan of tickets_status_user_queue,
// one seek per queue however many tickets each holds.
func (s *call) heldQueues(ctx context.Context, company engine.ID, status string, user engine.ID, limit int) ([]engine.ID, error) {
	const next = `SELECT t.queue_id FROM tickets t WHERE t.company_id = $1 AND t.status = $2 AND t.user_id = $3
		AND t.deleted = FALSE`
	query := `WITH RECURSIVE q(v, n) AS (
		SELECT (` + next + ` ORDER BY t.queue_id LIMIT 1), 1
		UNION ALL
		SELECT (` + next + ` AND t.queue_id > q.v ORDER BY t.queue_id LIMIT 1), q.n + 1 FROM q
		WHERE q.v IS NOT NULL AND q.n < $4
	) SELECT v FROM q WHERE v IS NOT NULL`
	rs, err := s.query(ctx, query, []any{company, status, user, limit})
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []engine.ID
	for rs.Next() {
		var q engine.ID
		if err := rs.Scan(&q); err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, rs.Err()
}
