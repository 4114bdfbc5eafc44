package schedule

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

// txn is a transaction of either dialect: pgx on PostgreSQL (so River's pgx driver can
// insert its job in it), database/sql on SQLite (River's SQLite driver takes
// *sql.Tx). Queries use $n placeholders, which both accept.
type txn interface {
	exec(ctx context.Context, q string, args ...any) (int64, error)
	queryRow(ctx context.Context, q string, args ...any) row
	// raw is the driver's transaction (pgx.Tx or *sql.Tx) for River.
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
func (t pgTx) raw() any { return t.tx }

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
func (t sqlTx) raw() any { return t.tx }

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
