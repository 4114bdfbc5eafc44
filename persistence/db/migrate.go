package db

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migrations live in migrations/<dialect>/NNNN_name.sql, one file a version, applied in
// version order, each in its own transaction together with its schema_migrations row.
// Both dialects carry the same versions (a test checks). Version ranges by subsystem:
// 0001–0099 journal and core, 0100–0199 reference data and auth, 0200–0299 read models,
// 0300– channels.
//
//go:embed migrations
var migrationFS embed.FS

// Migration is one versioned schema change.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations lists the migrations of a dialect in version order.
func Migrations(d Dialect) ([]Migration, error) {
	dir := path.Join("migrations", string(d))
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, fmt.Errorf("list migrations %s: %w", d, err)
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		base := strings.TrimSuffix(e.Name(), ".sql")
		num, name, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s/%s: name must be NNNN_name.sql", d, e.Name())
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migration %s: version %d used by %s and %s", d, v, prev, e.Name())
		}
		seen[v] = e.Name()
		body, err := fs.ReadFile(migrationFS, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// migrateLockKey is the PostgreSQL advisory lock that keeps two nodes starting at once
// from migrating together.
const migrateLockKey = 0x617465_6e6465 // "atende"

// WithMigrationLock runs fn holding the advisory lock Migrate holds on PostgreSQL, so
// that migrations of other components (River's tables) also run one node at a time.
// On SQLite the single writer is the lock.
func (d *DB) WithMigrationLock(ctx context.Context, fn func() error) error {
	if d.Dialect != Postgres {
		return fn()
	}
	conn, err := d.SQL.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer conn.Close()
	unlock, err := lockMigrations(ctx, conn)
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer unlock()
	return fn()
}

// lockMigrations takes the migration lock on conn, waiting as long as another node's
// migrations take: the wait and the migrations themselves (an index over a large
// table) are exempt from the session's statement_timeout (SessionLimits) until the
// returned unlock, which restores it.
func lockMigrations(ctx context.Context, conn *sql.Conn) (unlock func(), err error) {
	if _, err := conn.ExecContext(ctx, `SET statement_timeout = 0`); err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrateLockKey); err != nil {
		return nil, err
	}
	return func() {
		ctx := context.WithoutCancel(ctx)
		_, _ = conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, migrateLockKey)
		_, _ = conn.ExecContext(ctx, `RESET statement_timeout`)
	}, nil
}

// Migrate applies every pending migration and returns the versions it applied.
func (d *DB) Migrate(ctx context.Context) ([]int, error) {
	ms, err := Migrations(d.Dialect)
	if err != nil {
		return nil, err
	}
	conn, err := d.SQL.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	if d.Dialect == Postgres {
		unlock, err := lockMigrations(ctx, conn)
		if err != nil {
			return nil, fmt.Errorf("migrate: lock: %w", err)
		}
		defer unlock()
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		applied_at TEXT NOT NULL)`); err != nil {
		return nil, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	applied := map[int]bool{}
	rows, err := conn.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("migrate: read versions: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return nil, fmt.Errorf("migrate: read versions: %w", err)
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("migrate: read versions: %w", err)
	}
	var done []int
	for _, m := range ms {
		if applied[m.Version] {
			continue
		}
		if err := applyOne(ctx, conn, m); err != nil {
			return done, err
		}
		done = append(done, m.Version)
	}
	return done, nil
}

func applyOne(ctx context.Context, conn *sql.Conn, m Migration) (err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %04d_%s: begin: %w", m.Version, m.Name, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if _, err = tx.ExecContext(ctx, m.SQL); err != nil {
		return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
	}
	if _, err = tx.ExecContext(ctx,
		`INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, CURRENT_TIMESTAMP)`,
		m.Version, m.Name); err != nil {
		return fmt.Errorf("migration %04d_%s: record: %w", m.Version, m.Name, err)
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("migration %04d_%s: commit: %w", m.Version, m.Name, err)
	}
	return nil
}
