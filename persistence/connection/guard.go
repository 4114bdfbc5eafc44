package connection

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"atende/engine"
	"atende/persistence/db"
)

// Guard implements engine.TicketGuard on table contact_tickets.
type Guard struct{ db *db.DB }

var _ engine.TicketGuard = (*Guard)(nil)

// NewGuard returns the ticket guard of d.
func NewGuard(d *db.DB) *Guard { return &Guard{db: d} }

// Current implements engine.TicketGuard.
func (g *Guard) Current(ctx context.Context, connectionID, contactID engine.ID) (engine.ID, error) {
	var id engine.ID
	err := g.db.SQL.QueryRowContext(ctx, `SELECT ticket_id FROM contact_tickets WHERE connection_id = $1 AND contact_id = $2`,
		connectionID, contactID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("ticket of contact %d on connection %d: %w", contactID, connectionID, err)
	}
	return id, nil
}

// Swap implements engine.TicketGuard as a compare-and-set: an insert when prev is 0,
// a conditional update otherwise.
func (g *Guard) Swap(ctx context.Context, companyID, connectionID, contactID, prev, next engine.ID) (bool, engine.ID, error) {
	var res sql.Result
	var err error
	if prev == 0 {
		res, err = g.db.SQL.ExecContext(ctx, `INSERT INTO contact_tickets (connection_id, contact_id, company_id, ticket_id)
			VALUES ($1, $2, $3, $4) ON CONFLICT (connection_id, contact_id) DO NOTHING`, connectionID, contactID, companyID, next)
	} else {
		res, err = g.db.SQL.ExecContext(ctx, `UPDATE contact_tickets SET ticket_id = $4
			WHERE connection_id = $1 AND contact_id = $2 AND company_id = $3 AND ticket_id = $5`,
			connectionID, contactID, companyID, next, prev)
	}
	if err != nil {
		return false, 0, fmt.Errorf("swap ticket of contact %d on connection %d: %w", contactID, connectionID, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, next, nil
	}
	now, err := g.Current(ctx, connectionID, contactID)
	return false, now, err
}
