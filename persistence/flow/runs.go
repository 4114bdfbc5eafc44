package flow

import (
	"context"
	"fmt"
	"time"

	"atende/engine"
)

// Runs is the hint table of unfinished flow runs (flow_runs). The flow actor writes
// a run's status after each append and removes the row when the run finishes; a node
// that starts, and the periodic sweep, wake the runs found running so that a run
// interrupted between two steps (a crash, a lost node) carries on. Waiting runs need
// no waking: their timeout job or the customer's reply wakes them.
type Runs struct{ s *Store }

// NewRuns returns the run table of the store's database.
func NewRuns(s *Store) *Runs { return &Runs{s: s} }

// Put records the status of the run of ticketID.
func (r *Runs) Put(ctx context.Context, companyID, ticketID, flowID engine.ID, status string) error {
	_, err := r.s.db.SQL.ExecContext(ctx, `INSERT INTO flow_runs (ticket_id, company_id, flow_id, status, updated_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (ticket_id) DO UPDATE SET status = $4, updated_at = $5`,
		ticketID, companyID, flowID, status, r.s.ts(r.s.now()))
	if err != nil {
		return fmt.Errorf("put flow run %d: %w", ticketID, err)
	}
	return nil
}

// Remove forgets the run of ticketID (it finished).
func (r *Runs) Remove(ctx context.Context, ticketID engine.ID) error {
	if _, err := r.s.db.SQL.ExecContext(ctx, `DELETE FROM flow_runs WHERE ticket_id = $1`, ticketID); err != nil {
		return fmt.Errorf("remove flow run %d: %w", ticketID, err)
	}
	return nil
}

// RunRef names a run to wake.
type RunRef struct {
	CompanyID, TicketID engine.ID
}

// Stalled lists the runs recorded running whose last write is older than idle (at
// most limit, oldest first).
func (r *Runs) Stalled(ctx context.Context, idle time.Duration, limit int) ([]RunRef, error) {
	rows, err := r.s.db.SQL.QueryContext(ctx, `SELECT company_id, ticket_id FROM flow_runs
		WHERE status = $1 AND updated_at <= $2 ORDER BY updated_at LIMIT $3`,
		engine.FlowRunning, r.s.ts(r.s.now().Add(-idle)), limit)
	if err != nil {
		return nil, fmt.Errorf("stalled flow runs: %w", err)
	}
	defer rows.Close()
	var out []RunRef
	for rows.Next() {
		var ref RunRef
		if err := rows.Scan(&ref.CompanyID, &ref.TicketID); err != nil {
			return nil, fmt.Errorf("stalled flow runs: %w", err)
		}
		out = append(out, ref)
	}
	return out, rows.Err()
}
