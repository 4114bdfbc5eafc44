package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"atende/engine"
	"atende/persistence/db"
)

// Companies implements engine.CompanyStore on either dialect.
//
// Safe for concurrent use.
type Companies struct {
	refBase
}

var _ engine.CompanyStore = (*Companies)(nil)

// NewCompanies returns the company store of d; a nil clock is the system clock.
func NewCompanies(d *db.DB, clock engine.Clock) *Companies {
	return &Companies{refBase: newRefBase(d, clock)}
}

// Create implements engine.CompanyStore. With an explicit ID on PostgreSQL the id
// sequence is moved past it, so later companies without an ID do not collide.
func (s *Companies) Create(ctx context.Context, c engine.Company) (engine.Company, error) {
	c.Name = strings.TrimSpace(c.Name)
	if c.Name == "" {
		return engine.Company{}, refFieldError("name", engine.MsgRequired)
	}
	if c.ID < 0 {
		return engine.Company{}, refFieldError("id", engine.MsgInvalidValue)
	}
	now := s.now()
	var id engine.ID
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		if c.ID == 0 {
			err = tx.QueryRowContext(ctx, `INSERT INTO companies (name, created_at) VALUES ($1, $2) RETURNING id`,
				c.Name, s.ts(now)).Scan(&id)
		} else {
			err = tx.QueryRowContext(ctx, `INSERT INTO companies (id, name, created_at) VALUES ($1, $2, $3) RETURNING id`,
				c.ID, c.Name, s.ts(now)).Scan(&id)
		}
		if err != nil {
			return fmt.Errorf("insert company %q: %w", c.Name, err)
		}
		if c.ID != 0 && s.db.Dialect == db.Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('companies', 'id'),
				GREATEST((SELECT max(id) FROM companies), 1))`); err != nil {
				return fmt.Errorf("insert company %q: move sequence: %w", c.Name, err)
			}
		}
		return nil
	})
	if err != nil {
		return engine.Company{}, err
	}
	return s.Get(ctx, id)
}

// Get implements engine.CompanyStore.
func (s *Companies) Get(ctx context.Context, id engine.ID) (engine.Company, error) {
	var c engine.Company
	err := s.db.SQL.QueryRowContext(ctx, `SELECT id, name, created_at FROM companies WHERE id = $1`, id).
		Scan(&c.ID, &c.Name, refTime{&c.CreatedAt})
	if errors.Is(err, sql.ErrNoRows) {
		return c, engine.E(engine.ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("get company %d: %w", id, err)
	}
	return c, nil
}
