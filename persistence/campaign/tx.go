package campaign

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"atende/persistence/db"
)

// row is one scanned row of either dialect.
type row interface{ Scan(dest ...any) error }

// rows is a result set of either dialect.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// txn is a transaction of either dialect: pgx on PostgreSQL (River's pgx driver
// inserts its jobs in it), database/sql on SQLite. Queries use $n placeholders.
type txn interface {
	exec(ctx context.Context, q string, args ...any) (int64, error)
	queryRow(ctx context.Context, q string, args ...any) row
	query(ctx context.Context, q string, args ...any) (rows, error)
	raw() any
}

type pgTx struct{ tx pgx.Tx }

func (t pgTx) exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}
func (t pgTx) queryRow(ctx context.Context, q string, args ...any) row {
	return t.tx.QueryRow(ctx, q, args...)
}
func (t pgTx) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgRows{r}, nil
}
func (t pgTx) raw() any { return t.tx }

type pgRows struct{ pgx.Rows }

func (r pgRows) Close() { r.Rows.Close() }

type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := t.tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
func (t sqlTx) queryRow(ctx context.Context, q string, args ...any) row {
	return t.tx.QueryRowContext(ctx, q, args...)
}
func (t sqlTx) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := t.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}
func (t sqlTx) raw() any { return t.tx }

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }

// inTx runs fn in a transaction of d's dialect, committing when it returns nil.
func inTx(ctx context.Context, d *db.DB, fn func(txn) error) error {
	if d.Dialect == db.Postgres {
		tx, err := d.Pool.Begin(ctx)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
		if err := fn(pgTx{tx}); err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	}
	return d.Tx(ctx, func(tx *sql.Tx) error { return fn(sqlTx{tx}) })
}

// isNoRows reports a query that found no row, in either dialect.
func isNoRows(err error) bool {
	return errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows)
}
