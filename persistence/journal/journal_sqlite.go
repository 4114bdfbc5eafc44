package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// sqliteTime is how the SQLite tables store instants: UTC, microseconds, sortable.
const sqliteTime = "2006-01-02T15:04:05.000000Z"

const sqliteEventCols = `position, stream_id, version, type, data, metadata, company_id, recorded_at`

// sqliteBackend writes through database/sql. SQLite has one writer at a time and the
// committer's BEGIN IMMEDIATE takes the write lock before it reads the head, so
// positions are assigned and made visible in commit order without further locking.
type sqliteBackend struct {
	// static after newSQLite
	d           *db.DB
	db          *sql.DB
	headStmt    *sql.Stmt
	verStmt     *sql.Stmt
	insertStmt  *sql.Stmt
	streamStmt  *sql.Stmt
	allStmt     *sql.Stmt
	companyStmt *sql.Stmt
	snapStmt    *sql.Stmt
}

func newSQLite(ctx context.Context, d *db.DB) (*sqliteBackend, error) {
	b := &sqliteBackend{d: d, db: d.SQL}
	for _, p := range []struct {
		dst   **sql.Stmt
		query string
	}{
		{&b.headStmt, `SELECT coalesce(max(position), 0) FROM events`},
		{&b.verStmt, `SELECT coalesce(max(version), 0) FROM events WHERE stream_id = $1`},
		{&b.insertStmt, `INSERT INTO events (` + sqliteEventCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`},
		{&b.streamStmt, `SELECT ` + sqliteEventCols + ` FROM events
			WHERE stream_id = $1 AND version >= $2 ORDER BY version LIMIT $3`},
		{&b.allStmt, `SELECT ` + sqliteEventCols + ` FROM events WHERE position > $1 ORDER BY position LIMIT $2`},
		{&b.companyStmt, `SELECT ` + sqliteEventCols + ` FROM events
			WHERE company_id = $1 AND position > $2 ORDER BY position LIMIT $3`},
		{&b.snapStmt, `SELECT version, type, data, recorded_at FROM snapshots WHERE stream_id = $1`},
	} {
		st, err := d.SQL.PrepareContext(ctx, p.query)
		if err != nil {
			b.close()
			return nil, fmt.Errorf("journal: prepare %q: %w", p.query, err)
		}
		*p.dst = st
	}
	return b, nil
}

func (b *sqliteBackend) close() {
	for _, st := range []*sql.Stmt{b.headStmt, b.verStmt, b.insertStmt, b.streamStmt, b.allStmt, b.companyStmt, b.snapStmt} {
		if st != nil {
			_ = st.Close()
		}
	}
}

func (b *sqliteBackend) appendTx(ctx context.Context, streams []string, _ int, plan planFunc) error {
	tx, err := b.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the write lock, now
	if err != nil {
		return aborted(fmt.Errorf("begin: %w", err))
	}
	rows, err := b.decide(ctx, tx, streams, plan)
	if err == nil && len(rows) > 0 {
		err = b.insert(ctx, tx, rows)
	}
	if err != nil {
		_ = tx.Rollback()
		return aborted(err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func (b *sqliteBackend) decide(ctx context.Context, tx *sql.Tx, streams []string, plan planFunc) ([]row, error) {
	var head int64
	if err := tx.StmtContext(ctx, b.headStmt).QueryRowContext(ctx).Scan(&head); err != nil {
		return nil, fmt.Errorf("read head: %w", err)
	}
	ver := tx.StmtContext(ctx, b.verStmt)
	versions := make(map[string]int64, len(streams))
	for _, st := range streams {
		var v int64
		if err := ver.QueryRowContext(ctx, st).Scan(&v); err != nil {
			return nil, fmt.Errorf("read version of %s: %w", st, err)
		}
		versions[st] = v
	}
	// Under the write lock positions simply continue the head: gapless, in commit order.
	return plan(func() int64 { head++; return head }, versions), nil
}

func (b *sqliteBackend) insert(ctx context.Context, tx *sql.Tx, rows []row) error {
	ins := tx.StmtContext(ctx, b.insertStmt)
	at := time.Now().UTC().Format(sqliteTime)
	for _, r := range rows {
		var meta any
		if len(r.metadata) > 0 {
			meta = string(r.metadata)
		}
		if _, err := ins.ExecContext(ctx, r.position, r.stream, r.version, r.typ, string(r.data), meta, r.companyID, at); err != nil {
			return fmt.Errorf("insert %s@%d: %w", r.stream, r.version, err)
		}
	}
	return nil
}

func (b *sqliteBackend) streamVersion(ctx context.Context, stream string) (int64, error) {
	var v int64
	err := b.verStmt.QueryRowContext(ctx, stream).Scan(&v)
	return v, err
}

func (b *sqliteBackend) readStream(ctx context.Context, stream string, from, limit int64) ([]engine.RecordedEvent, error) {
	return b.query(ctx, b.streamStmt, stream, from, limit)
}

func (b *sqliteBackend) readAll(ctx context.Context, after, limit int64) ([]engine.RecordedEvent, error) {
	return b.query(ctx, b.allStmt, after, limit)
}

func (b *sqliteBackend) readCompany(ctx context.Context, companyID engine.ID, after, limit int64) ([]engine.RecordedEvent, error) {
	return b.query(ctx, b.companyStmt, companyID, after, limit)
}

// readCompanyIn is readCompany in tx, a transaction of the caller's that holds
// SQLite's write lock (see ReadCompanyWithin).
func (b *sqliteBackend) readCompanyIn(ctx context.Context, tx *sql.Tx, companyID engine.ID, after, limit int64) ([]engine.RecordedEvent, error) {
	st := tx.StmtContext(ctx, b.companyStmt)
	defer st.Close()
	return b.query(ctx, st, companyID, after, limit)
}

func (b *sqliteBackend) query(ctx context.Context, st *sql.Stmt, args ...any) ([]engine.RecordedEvent, error) {
	rs, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []engine.RecordedEvent
	for rs.Next() {
		var e engine.RecordedEvent
		var at string
		if err := rs.Scan(&e.Position, &e.StreamID, &e.Version, &e.Type, &e.Data, &e.Metadata, &e.CompanyID, &at); err != nil {
			return nil, err
		}
		if e.RecordedAt, err = time.Parse(sqliteTime, at); err != nil {
			return nil, fmt.Errorf("event %d: recorded_at %q: %w", e.Position, at, err)
		}
		out = append(out, e)
	}
	return out, rs.Err()
}

func (b *sqliteBackend) head(ctx context.Context) (int64, error) {
	var h int64
	err := b.headStmt.QueryRowContext(ctx).Scan(&h)
	return h, err
}

func (b *sqliteBackend) saveSnapshot(ctx context.Context, snap engine.Snapshot) (bool, error) {
	var exists bool
	err := b.d.Tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM events WHERE stream_id = $1 AND version = $2)`,
			snap.StreamID, snap.Version).Scan(&exists); err != nil || !exists {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO snapshots (stream_id, version, type, data, recorded_at)
			VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, type = excluded.type,
				data = excluded.data, recorded_at = excluded.recorded_at
			WHERE snapshots.version <= excluded.version`,
			snap.StreamID, snap.Version, snap.Type, nonNil(snap.Data), time.Now().UTC().Format(sqliteTime))
		return err
	})
	return exists, err
}

func (b *sqliteBackend) loadSnapshot(ctx context.Context, stream string) (engine.Snapshot, bool, error) {
	s := engine.Snapshot{StreamID: stream}
	var at string
	err := b.snapStmt.QueryRowContext(ctx, stream).Scan(&s.Version, &s.Type, &s.Data, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return engine.Snapshot{}, false, nil
	}
	if err != nil {
		return engine.Snapshot{}, false, err
	}
	if s.RecordedAt, err = time.Parse(sqliteTime, at); err != nil {
		return engine.Snapshot{}, false, fmt.Errorf("recorded_at %q: %w", at, err)
	}
	return s, true, nil
}

// nonNil keeps an empty snapshot from being stored as NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
