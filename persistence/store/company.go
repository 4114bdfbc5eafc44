package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// Companies implements engine.TenantStore (and so engine.CompanyStore) on either
// dialect.
//
// Safe for concurrent use.
type Companies struct {
	refBase
}

var _ engine.TenantStore = (*Companies)(nil)

// NewCompanies returns the company store of d; a nil clock is the system clock.
func NewCompanies(d *db.DB, clock engine.Clock) *Companies {
	return &Companies{refBase: newRefBase(d, clock)}
}

const companyCols = `id, name, created_at, disabled_at IS NOT NULL`

// Create implements engine.CompanyStore. With an explicit ID on PostgreSQL the id
// sequence is moved past it, so later companies without an ID do not collide. A
// name another tenant has (case and accents ignored) is ErrTenantNameDuplicated.
func (s *Companies) Create(ctx context.Context, c engine.Company) (engine.Company, error) {
	var id engine.ID
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = s.insert(ctx, tx, c)
		return err
	})
	if err != nil {
		return engine.Company{}, err
	}
	return s.Get(ctx, id)
}

// insert writes the company row inside tx and answers its id.
func (s *Companies) insert(ctx context.Context, tx *sql.Tx, c engine.Company) (engine.ID, error) {
	c.Name = strings.TrimSpace(c.Name)
	if c.Name == "" {
		return 0, refFieldError("name", engine.MsgRequired)
	}
	if c.ID < 0 {
		return 0, refFieldError("id", engine.MsgInvalidValue)
	}
	now := s.now()
	var id engine.ID
	var err error
	if c.ID == 0 && s.db.Dialect == db.Postgres {
		// Rows inserted with explicit ids (by SQL rather than Create) leave the
		// sequence behind: move it past them, only when its next value is taken, so
		// that two creations at once never move it back under each other.
		if _, err := tx.ExecContext(ctx, `SELECT setval('companies_id_seq', x.m) FROM (SELECT max(id) AS m FROM companies) x
			WHERE x.m >= (SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM companies_id_seq)`); err != nil {
			return 0, fmt.Errorf("insert company %q: move sequence: %w", c.Name, err)
		}
	}
	if c.ID == 0 {
		err = tx.QueryRowContext(ctx, `INSERT INTO companies (name, name_key, created_at) VALUES ($1, $2, $3) RETURNING id`,
			c.Name, refFold(c.Name), s.ts(now)).Scan(&id)
	} else {
		err = tx.QueryRowContext(ctx, `INSERT INTO companies (id, name, name_key, created_at) VALUES ($1, $2, $3, $4) RETURNING id`,
			c.ID, c.Name, refFold(c.Name), s.ts(now)).Scan(&id)
	}
	if db.IsUniqueViolation(err) && s.nameTaken(ctx, tx, c.Name) {
		return 0, engine.Wrap(engine.ErrTenantNameDuplicated, err)
	}
	if err != nil {
		return 0, fmt.Errorf("insert company %q: %w", c.Name, err)
	}
	if c.ID != 0 && s.db.Dialect == db.Postgres {
		if _, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('companies', 'id'),
			GREATEST((SELECT max(id) FROM companies), 1))`); err != nil {
			return 0, fmt.Errorf("insert company %q: move sequence: %w", c.Name, err)
		}
	}
	return id, nil
}

// nameTaken reports whether the unique violation was the name's (not the id's). On
// PostgreSQL a failed statement aborts the transaction, so it asks outside it.
func (s *Companies) nameTaken(ctx context.Context, tx *sql.Tx, name string) bool {
	q := `SELECT 1 FROM companies WHERE name_key = $1`
	var one int
	var err error
	if s.db.Dialect == db.Postgres {
		err = s.db.SQL.QueryRowContext(ctx, q, refFold(name)).Scan(&one)
	} else {
		err = tx.QueryRowContext(ctx, q, refFold(name)).Scan(&one)
	}
	return err == nil
}

// CreateWithAdmin implements engine.TenantStore: the company, its default settings
// and its first user in one transaction.
func (s *Companies) CreateWithAdmin(ctx context.Context, c engine.Company, admin engine.NewUser) (engine.Company, engine.User, error) {
	var id engine.ID
	var u engine.User
	users := &Users{refBase: s.refBase}
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		if id, err = s.insert(ctx, tx, c); err != nil {
			return err
		}
		admin.CompanyID = id
		u, err = users.create(ctx, tx, admin)
		return err
	})
	if err != nil {
		return engine.Company{}, engine.User{}, err
	}
	out, err := s.Get(ctx, id)
	return out, u, err
}

// Get implements engine.CompanyStore.
func (s *Companies) Get(ctx context.Context, id engine.ID) (engine.Company, error) {
	c, err := scanCompany(s.db.SQL.QueryRowContext(ctx, `SELECT `+companyCols+` FROM companies WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return c, engine.E(engine.ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("get company %d: %w", id, err)
	}
	return c, nil
}

// ByName implements engine.TenantStore.
func (s *Companies) ByName(ctx context.Context, name string) (engine.Company, error) {
	c, err := scanCompany(s.db.SQL.QueryRowContext(ctx, `SELECT `+companyCols+` FROM companies WHERE name_key = $1`,
		refFold(strings.TrimSpace(name))))
	if errors.Is(err, sql.ErrNoRows) {
		return c, engine.E(engine.ErrNoTenantFound)
	}
	if err != nil {
		return c, fmt.Errorf("get company %q: %w", name, err)
	}
	return c, nil
}

func scanCompany(row refScanner) (engine.Company, error) {
	var c engine.Company
	err := row.Scan(&c.ID, &c.Name, refTime{&c.CreatedAt}, &c.Disabled)
	return c, err
}

// List implements engine.TenantStore. The counts are one grouped query per table,
// joined by tenant id: the number of tenants is small (a hosting operator's
// customers), the tables are indexed by company first.
func (s *Companies) List(ctx context.Context) ([]engine.TenantSummary, error) {
	rows, err := s.db.SQL.QueryContext(ctx, `SELECT c.id, c.name, c.created_at, c.disabled_at IS NOT NULL,
		COALESCE(u.n, 0), COALESCE(w.n, 0), COALESCE(t.n, 0), COALESCE(t.open, 0), COALESCE(t.pending, 0)
		FROM companies c
		LEFT JOIN (SELECT company_id, count(*) AS n FROM users GROUP BY company_id) u ON u.company_id = c.id
		LEFT JOIN (SELECT company_id, count(*) AS n FROM connections GROUP BY company_id) w ON w.company_id = c.id
		LEFT JOIN (SELECT company_id, count(*) AS n,
			SUM(CASE WHEN status = 'open' THEN 1 ELSE 0 END) AS open,
			SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END) AS pending
			FROM tickets WHERE NOT deleted GROUP BY company_id) t ON t.company_id = c.id
		ORDER BY c.id`)
	if err != nil {
		return nil, fmt.Errorf("list companies: %w", err)
	}
	defer rows.Close()
	out := []engine.TenantSummary{}
	for rows.Next() {
		var t engine.TenantSummary
		if err := rows.Scan(&t.ID, &t.Name, refTime{&t.CreatedAt}, &t.Disabled,
			&t.Users, &t.Connections, &t.Tickets, &t.OpenTickets, &t.PendingTickets); err != nil {
			return nil, fmt.Errorf("list companies: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list companies: %w", err)
	}
	return out, nil
}

// SetDisabled implements engine.TenantStore. Disabling a disabled tenant keeps the
// first time it was disabled.
func (s *Companies) SetDisabled(ctx context.Context, id engine.ID, disabled bool, at time.Time) (engine.Company, error) {
	var res sql.Result
	var err error
	if disabled {
		res, err = s.db.SQL.ExecContext(ctx, `UPDATE companies SET disabled_at = COALESCE(disabled_at, $2) WHERE id = $1`,
			id, s.ts(at.UTC().Truncate(time.Microsecond)))
	} else {
		res, err = s.db.SQL.ExecContext(ctx, `UPDATE companies SET disabled_at = NULL WHERE id = $1`, id)
	}
	if err != nil {
		return engine.Company{}, fmt.Errorf("disable company %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return engine.Company{}, fmt.Errorf("disable company %d: %w", id, err)
	} else if n == 0 {
		return engine.Company{}, engine.E(engine.ErrNoTenantFound)
	}
	return s.Get(ctx, id)
}
