package readmodel

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // the date filter's zone must load on hosts without zoneinfo

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/db"
)

// Config tunes Queries.
type Config struct {
	// Logger receives slow-path notes. The zero value logs nothing.
	Logger zerolog.Logger
	// Location is the zone of the date filter and the d: search: a date means the
	// tickets created between its midnights there. Nil: engine.QueueTimeZone
	// (America/Cuiaba).
	Location *time.Location
}

// Queries implements engine.TicketQueries over the read models. Safe for concurrent
// use.
type Queries struct {
	// static after construction
	db  *db.DB
	log zerolog.Logger
	loc *time.Location
	// searchMode forces a search plan (tests); zero chooses by the statistics.
	searchMode searchMode
}

var _ engine.TicketQueries = (*Queries)(nil)

// NewQueries returns the queries over d.
func NewQueries(d *db.DB, cfg Config) (*Queries, error) {
	if d == nil {
		return nil, errors.New("readmodel: nil database")
	}
	loc := cfg.Location
	if loc == nil {
		var err error
		if loc, err = time.LoadLocation(engine.QueueTimeZone); err != nil {
			return nil, fmt.Errorf("readmodel: load zone %s: %w", engine.QueueTimeZone, err)
		}
	}
	return &Queries{db: d, log: cfg.Logger, loc: loc}, nil
}

// call is one run of a public method: its reads go through q, which on PostgreSQL is
// a read-only REPEATABLE READ transaction, so the page, its count and its rows come
// from one snapshot.
type call struct {
	*Queries
	q querier
}

// read runs fn as one call. On PostgreSQL the transaction also turns parallel query
// off: the list's queries read a page's worth of rows, and starting workers cost more
// than they save (measured on 2 cores: a contact search's three walks went from 156
// to 28 ms, a word search's from 179 to 55 ms).
func (s *Queries) read(ctx context.Context, fn func(c *call) error) error {
	if s.db.Dialect != db.Postgres {
		return fn(&call{Queries: s, q: s.db.SQL})
	}
	tx, err := s.db.SQL.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `SET LOCAL max_parallel_workers_per_gather = 0`); err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	if err := fn(&call{Queries: s, q: tx}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("end read: %w", err)
	}
	return nil
}

// query runs a read. On PostgreSQL it asks pgx for an unnamed statement
// (QueryExecModeExec), which the server plans with the actual arguments every time:
// the list's statements are the same text with different filters, and the generic
// plan a cached prepared statement falls back to after five runs cannot see that a
// protocol range or a LIKE pattern is narrow or wide (measured: a protocol search
// went from 13 ms to 4 s on its sixth run).
func (c *call) query(ctx context.Context, query string, list []any) (*sql.Rows, error) {
	return c.q.QueryContext(ctx, query, c.withMode(list)...)
}

func (c *call) queryRow(ctx context.Context, query string, list []any) *sql.Row {
	return c.q.QueryRowContext(ctx, query, c.withMode(list)...)
}

func (c *call) withMode(list []any) []any {
	if c.db.Dialect != db.Postgres {
		return list
	}
	return append([]any{pgx.QueryExecModeExec}, list...)
}

func errNoTicket(companyID, id engine.ID) error {
	return engine.Wrap(engine.ErrNoTicketFound, fmt.Errorf("ticket %d not in company %d", id, companyID))
}

func errPrincipal(p engine.Principal) error {
	return engine.Wrap(engine.ErrNoPermission, fmt.Errorf("invalid principal (user %d, company %d, profile %q)", p.UserID, p.CompanyID, p.Profile))
}
