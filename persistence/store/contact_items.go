package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"atende/engine"
)

// Extra info and sales opportunities of contacts.

// maxContactItems caps each list of a contact (extra info, opportunities), so that a
// body within the size limit cannot make one request write thousands of rows.
const maxContactItems = 100

// loadItems fills the extra info and opportunities of contacts (all of companyID) with
// two queries, whatever the number of contacts.
func (s *Contacts) loadItems(ctx context.Context, q refQuerier, companyID engine.ID, contacts []engine.Contact) error {
	if len(contacts) == 0 {
		return nil
	}
	at := make(map[engine.ID]int, len(contacts))
	args := []any{companyID}
	for i, c := range contacts {
		at[c.ID] = i
		args = append(args, c.ID)
	}
	in := refPlaceholders(2, len(contacts))
	rows, err := q.QueryContext(ctx, `SELECT contact_id, id, name, value FROM contact_extra_info
		WHERE company_id = $1 AND contact_id IN (`+in+`) ORDER BY contact_id, position, id`, args...)
	if err != nil {
		return fmt.Errorf("load contact extra info: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var contactID engine.ID
		var x engine.ExtraInfo
		if err := rows.Scan(&contactID, &x.ID, &x.Name, &x.Value); err != nil {
			return fmt.Errorf("load contact extra info: %w", err)
		}
		c := &contacts[at[contactID]]
		c.ExtraInfo = append(c.ExtraInfo, x)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load contact extra info: %w", err)
	}
	rows.Close()

	rows, err = q.QueryContext(ctx, `SELECT contact_id, id, name, value, stage, closing_status FROM contact_sales_opps
		WHERE company_id = $1 AND contact_id IN (`+in+`) ORDER BY contact_id, position, id`, args...)
	if err != nil {
		return fmt.Errorf("load contact sales opportunities: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var contactID engine.ID
		var o engine.SalesOpp
		var status sql.NullInt64
		if err := rows.Scan(&contactID, &o.ID, &o.Name, &o.Value, &o.Stage, &status); err != nil {
			return fmt.Errorf("load contact sales opportunities: %w", err)
		}
		if status.Valid {
			v := int(status.Int64)
			o.ClosingStatus = &v
		}
		c := &contacts[at[contactID]]
		c.SalesOpps = append(c.SalesOpps, o)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load contact sales opportunities: %w", err)
	}
	return nil
}

// replaceExtraInfo makes items the contact's extra info, keeping the rows (and ids)
// of items that name one of the contact's ids.
func (s *Contacts) replaceExtraInfo(ctx context.Context, tx *sql.Tx, companyID, contactID engine.ID, items []engine.ExtraInfo) error {
	if len(items) > maxContactItems {
		return refFieldError("extraInfo", engine.MsgTooLong)
	}
	existing, err := itemIDs(ctx, tx, "contact_extra_info", companyID, contactID)
	if err != nil {
		return err
	}
	kept := keptIDs(existing, len(items), func(i int) engine.ID { return items[i].ID })
	if err := deleteOtherItems(ctx, tx, "contact_extra_info", companyID, contactID, kept); err != nil {
		return err
	}
	for i, x := range items {
		if kept[i] != 0 {
			_, err = tx.ExecContext(ctx, `UPDATE contact_extra_info SET position = $1, name = $2, value = $3
				WHERE id = $4 AND contact_id = $5`, i, x.Name, x.Value, kept[i], contactID)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO contact_extra_info (company_id, contact_id, position, name, value)
				VALUES ($1, $2, $3, $4, $5)`, companyID, contactID, i, x.Name, x.Value)
		}
		if err != nil {
			return fmt.Errorf("save extra info of contact %d: %w", contactID, err)
		}
	}
	return nil
}

// replaceSalesOpps makes items the contact's opportunities like replaceExtraInfo. A
// kept opportunity that is already closed keeps its closing status; an open one (or a
// new one) takes the item's, stamping closed_at when that closes it.
func (s *Contacts) replaceSalesOpps(ctx context.Context, tx *sql.Tx, companyID, contactID engine.ID, items []engine.SalesOpp, now time.Time) error {
	if len(items) > maxContactItems {
		return refFieldError("salesOpps", engine.MsgTooLong)
	}
	existing, err := itemIDs(ctx, tx, "contact_sales_opps", companyID, contactID)
	if err != nil {
		return err
	}
	kept := keptIDs(existing, len(items), func(i int) engine.ID { return items[i].ID })
	if err := deleteOtherItems(ctx, tx, "contact_sales_opps", companyID, contactID, kept); err != nil {
		return err
	}
	for i, o := range items {
		var status, closedAt any
		if o.ClosingStatus != nil {
			status, closedAt = int64(*o.ClosingStatus), s.ts(now)
		}
		if kept[i] != 0 {
			// The status is written only while the stored one is NULL (open).
			_, err = tx.ExecContext(ctx, `UPDATE contact_sales_opps SET position = $1, name = $2, value = $3,
				stage = $4,
				closed_at = CASE WHEN closing_status IS NULL THEN $5 ELSE closed_at END,
				closing_status = COALESCE(closing_status, $6)
				WHERE id = $7 AND contact_id = $8`,
				i, o.Name, o.Value, o.Stage, closedAt, status, kept[i], contactID)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO contact_sales_opps
				(company_id, contact_id, position, name, value, stage, closing_status, closed_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
				companyID, contactID, i, o.Name, o.Value, o.Stage, status, closedAt)
		}
		if err != nil {
			return fmt.Errorf("save sales opportunity of contact %d: %w", contactID, err)
		}
	}
	return nil
}

// itemIDs lists the ids of a contact's rows in table (a child table of contacts).
func itemIDs(ctx context.Context, tx *sql.Tx, table string, companyID, contactID engine.ID) (map[engine.ID]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM `+table+` WHERE contact_id = $1 AND company_id = $2`,
		contactID, companyID)
	if err != nil {
		return nil, fmt.Errorf("read %s of contact %d: %w", table, contactID, err)
	}
	defer rows.Close()
	ids := map[engine.ID]bool{}
	for rows.Next() {
		var id engine.ID
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("read %s of contact %d: %w", table, contactID, err)
		}
		ids[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s of contact %d: %w", table, contactID, err)
	}
	return ids, nil
}

// keptIDs says, for each of n items, the existing row it keeps (0: a new row). An id
// that is not one of the contact's, or that an earlier item already kept, makes a new
// row: a client can never reach another contact's rows by naming their ids.
func keptIDs(existing map[engine.ID]bool, n int, idOf func(int) engine.ID) []engine.ID {
	kept := make([]engine.ID, n)
	used := map[engine.ID]bool{}
	for i := range n {
		if id := idOf(i); id > 0 && existing[id] && !used[id] {
			kept[i] = id
			used[id] = true
		}
	}
	return kept
}

// deleteOtherItems removes a contact's rows of table other than those kept.
func deleteOtherItems(ctx context.Context, tx *sql.Tx, table string, companyID, contactID engine.ID, kept []engine.ID) error {
	query := `DELETE FROM ` + table + ` WHERE contact_id = $1 AND company_id = $2`
	args := []any{contactID, companyID}
	for _, id := range kept {
		if id != 0 {
			args = append(args, id)
		}
	}
	if len(args) > 2 {
		query += ` AND id NOT IN (` + refPlaceholders(3, len(args)-2) + `)`
	}
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("prune %s of contact %d: %w", table, contactID, err)
	}
	return nil
}

// CloseSalesOpp implements engine.ContactStore. The update is conditional on the
// opportunity still being open, so of two attendants marking it at once exactly one
// wins and the other gets ErrInvalidTransition.
func (s *Contacts) CloseSalesOpp(ctx context.Context, companyID, contactID, oppID engine.ID, status int) (engine.Contact, error) {
	if status != engine.OppWon && status != engine.OppLost {
		return engine.Contact{}, refFieldError("closingStatus", engine.MsgInvalidValue)
	}
	now := s.now()
	var out engine.Contact
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		query := `SELECT contact_id, closing_status FROM contact_sales_opps WHERE id = $1 AND company_id = $2`
		args := []any{oppID, companyID}
		if contactID != 0 {
			query += ` AND contact_id = $3`
			args = append(args, contactID)
		}
		var owner engine.ID
		var stored sql.NullInt64
		err := tx.QueryRowContext(ctx, query, args...).Scan(&owner, &stored)
		if errors.Is(err, sql.ErrNoRows) {
			return engine.E(engine.ErrNoContactFound)
		}
		if err != nil {
			return fmt.Errorf("read sales opportunity %d: %w", oppID, err)
		}
		if stored.Valid {
			return engine.E(engine.ErrInvalidTransition)
		}
		res, err := tx.ExecContext(ctx, `UPDATE contact_sales_opps SET closing_status = $1, closed_at = $2
			WHERE id = $3 AND closing_status IS NULL`, status, s.ts(now), oppID)
		if err != nil {
			return fmt.Errorf("close sales opportunity %d: %w", oppID, err)
		}
		if n, err := refAffected(res); err != nil {
			return fmt.Errorf("close sales opportunity %d: %w", oppID, err)
		} else if n == 0 {
			return engine.E(engine.ErrInvalidTransition)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE contacts SET updated_at = $1 WHERE id = $2 AND company_id = $3`,
			s.ts(now), owner, companyID); err != nil {
			return fmt.Errorf("touch contact %d: %w", owner, err)
		}
		out, err = s.get(ctx, tx, companyID, owner)
		return err
	})
	return out, err
}
