package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Dialect names the SQL flavour behind a *DB.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DefaultSQLitePath is where the embedded database lives when no URL is given.
const DefaultSQLitePath = "data/atende.db"

// DB is an open database with its dialect.
type DB struct {
	// static after Open
	SQL     *sql.DB
	Dialect Dialect
	// Pool is the native pgx pool on PostgreSQL (nil on SQLite); SQL shares it, so
	// hot paths may use pgx batches while the rest uses database/sql.
	Pool *pgxpool.Pool
	// Desc is the URL with any password masked, for logs.
	Desc string
}

// Open connects to rawURL: empty or "sqlite:PATH" / "file:PATH" selects SQLite (PATH
// defaults to DefaultSQLitePath; its folder is created), "postgres://" or
// "postgresql://" selects PostgreSQL. Open pings before returning.
func Open(ctx context.Context, rawURL string) (*DB, error) {
	switch {
	case rawURL == "" || strings.HasPrefix(rawURL, "sqlite:") || strings.HasPrefix(rawURL, "file:"):
		return openSQLite(ctx, sqlitePath(rawURL))
	case strings.HasPrefix(rawURL, "postgres://") || strings.HasPrefix(rawURL, "postgresql://"):
		return openPostgres(ctx, rawURL)
	default:
		return nil, fmt.Errorf("open database: unsupported URL scheme in %q (want postgres://… or sqlite:PATH)", mask(rawURL))
	}
}

func sqlitePath(rawURL string) string {
	p := strings.TrimPrefix(strings.TrimPrefix(rawURL, "sqlite:"), "file:")
	p = strings.TrimPrefix(p, "//")
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	if p == "" {
		p = DefaultSQLitePath
	}
	return p
}

func openSQLite(ctx context.Context, path string) (*DB, error) {
	if path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
	}
	q := url.Values{}
	for _, p := range []string{
		"busy_timeout(10000)",
		"journal_mode(WAL)",
		"synchronous(FULL)",
		"foreign_keys(1)",
	} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	sqldb, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	// One writer at a time is SQLite's nature; readers run beside it in WAL mode.
	sqldb.SetMaxOpenConns(8)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	if err := sqldb.PingContext(ctx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return &DB{SQL: sqldb, Dialect: SQLite, Desc: "sqlite:" + path}, nil
}

func openPostgres(ctx context.Context, rawURL string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("open postgres %s: %w", mask(rawURL), err)
	}
	if cfg.MaxConns < 16 {
		cfg.MaxConns = 16
	}
	limitSessions(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres %s: %w", mask(rawURL), err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres %s: %w", mask(rawURL), err)
	}
	return &DB{SQL: stdlib.OpenDBFromPool(pool), Dialect: Postgres, Pool: pool, Desc: mask(rawURL)}, nil
}

// Close releases the connections.
func (d *DB) Close() error {
	err := d.SQL.Close()
	if d.Pool != nil {
		d.Pool.Close()
	}
	return err
}

// Querier is what *sql.DB, *sql.Tx and *sql.Conn offer: a read or write that runs
// in the caller's transaction when it holds one. On SQLite a transaction holds the
// single write lock, so code inside one must read through it: a second connection of
// the pool may be held by writers that wait for that very lock (busy_timeout).
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Tx runs fn in a transaction, committing when fn returns nil and rolling back
// otherwise (also on panic).
func (d *DB) Tx(ctx context.Context, fn func(*sql.Tx) error) (err error) {
	tx, err := d.SQL.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// IsUniqueViolation reports whether err is a unique-constraint violation in either
// dialect, so stores can map it to their own duplicate error.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	var coder interface{ SQLState() string }
	if errors.As(err, &coder) {
		return coder.SQLState() == "23505"
	}
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "constraint failed: UNIQUE")
}

func mask(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// SessionLimits are the PostgreSQL settings every session of ours starts with, so that
// no session can hold a lock or a snapshot for long whatever happens to the node that
// opened it: a transaction left idle (the process stopped, paused by the collector or
// cut off) is ended by the server after idle_in_transaction_session_timeout, which
// releases its locks; a statement runs at most statement_timeout; and the server probes
// a silent client with TCP keepalives (idle, interval, count), ending the session of a
// node it can no longer reach within about half a minute instead of the kernel's two
// hours — releasing the session-level advisory locks of leases with it. A parameter
// given in the database URL (e.g. ?statement_timeout=0) wins over its default here.
var SessionLimits = map[string]string{
	"idle_in_transaction_session_timeout": "10s",
	"statement_timeout":                   "2min",
	"tcp_keepalives_idle":                 "15",
	"tcp_keepalives_interval":             "5",
	"tcp_keepalives_count":                "3",
}

// clientKeepAlive is the same probing from our side: a connection whose server
// vanished fails within about half a minute rather than hanging on a dead socket.
var clientKeepAlive = net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3}

// limitSessions applies SessionLimits (where the URL set none) and the client-side
// keepalives to every connection of cfg, the pool's own and those copied from it
// (the lease and LISTEN connections).
func limitSessions(cfg *pgxpool.Config) {
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	for k, v := range SessionLimits {
		if _, set := cfg.ConnConfig.RuntimeParams[k]; !set {
			cfg.ConnConfig.RuntimeParams[k] = v
		}
	}
	dialer := &net.Dialer{Timeout: cfg.ConnConfig.ConnectTimeout, KeepAliveConfig: clientKeepAlive}
	if dialer.Timeout == 0 {
		dialer.Timeout = 10 * time.Second
	}
	cfg.ConnConfig.DialFunc = dialer.DialContext
}

// Analyze brings the planner's statistics of every table of the database's schema up
// to date (PostgreSQL; SQLite plans without them here). After a bulk load — an import
// — PostgreSQL would otherwise plan as for empty tables until autovacuum, if it runs
// at all, analyses them.
func (d *DB) Analyze(ctx context.Context) error {
	if d.Dialect != Postgres {
		return nil
	}
	rows, err := d.Pool.Query(ctx, `SELECT quote_ident(schemaname) || '.' || quote_ident(tablename)
		FROM pg_tables WHERE schemaname = current_schema()`)
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	if len(tables) == 0 {
		return nil
	}
	if _, err := d.Pool.Exec(ctx, "ANALYZE "+strings.Join(tables, ", ")); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}
