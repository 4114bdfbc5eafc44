package journal

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"atende/engine"
	"atende/persistence/db"
)

// appendLockKey is the transaction-scoped advisory lock every group-commit
// transaction of every node takes before it reads the head ("journal").
const appendLockKey int64 = 0x6a6f75726e616c

// notifyChannel is the LISTEN/NOTIFY channel commits are announced on.
const notifyChannel = "atende_journal"

const pgEventCols = `position, stream_id, version, type, data, metadata, company_id, recorded_at`

// insertMode chooses how a batch's rows travel to PostgreSQL.
type insertMode int

const (
	// insertUnnest sends one INSERT … SELECT FROM unnest($arrays): one statement,
	// one set of parameters per column.
	insertUnnest insertMode = iota
	// insertBatch queues one INSERT per row in the same pipeline.
	insertBatch
)

// postgresBackend writes through the native pgx pool. A group commit costs two round
// trips: [BEGIN, lock, head, versions] then [INSERT, NOTIFY, COMMIT].
type postgresBackend struct {
	// static after newPostgres
	pool   *pgxpool.Pool
	mode   insertMode
	notify bool
}

func newPostgres(d *db.DB) *postgresBackend {
	return &postgresBackend{pool: d.Pool, mode: insertUnnest, notify: true}
}

func (b *postgresBackend) close() {}

func (b *postgresBackend) appendTx(ctx context.Context, streams []string, plan planFunc) (err error) {
	conn, err := b.pool.Acquire(ctx)
	if err != nil {
		return aborted(fmt.Errorf("acquire connection: %w", err))
	}
	defer func() {
		// A failed pipeline leaves the transaction open (or aborted): end it so the
		// connection goes back to the pool clean (Release destroys it otherwise).
		if err != nil && !conn.Conn().IsClosed() && conn.Conn().PgConn().TxStatus() != 'I' {
			_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
		conn.Release()
	}()

	rows, err := b.decide(ctx, conn, streams, plan)
	if err != nil {
		// Nothing is committed before the second pipeline is sent.
		return aborted(err)
	}
	var batch pgx.Batch
	if len(rows) > 0 {
		b.queueInsert(&batch, rows)
	}
	if b.notify && len(rows) > 0 {
		batch.Queue(`SELECT pg_notify($1, $2)`, notifyChannel, strconv.FormatInt(rows[len(rows)-1].position, 10))
	}
	batch.Queue("COMMIT")
	br := conn.SendBatch(ctx, &batch)
	var tag pgconn.CommandTag
	for range batch.Len() {
		if tag, err = br.Exec(); err != nil {
			break
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil && tag.String() != "COMMIT" {
		err = fmt.Errorf("commit answered %q", tag.String())
	}
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			// The server refused a statement: the transaction is rolled back.
			return aborted(fmt.Errorf("insert: %w", err))
		}
		return fmt.Errorf("insert and commit: %w", err)
	}
	return nil
}

// decide opens the transaction, waits for the append lock, reads the head and the
// versions of streams, and plans the batch.
func (b *postgresBackend) decide(ctx context.Context, conn *pgxpool.Conn, streams []string, plan planFunc) ([]row, error) {
	var batch pgx.Batch
	// READ COMMITTED whatever the server's default: the head and versions must be
	// read with snapshots taken after the lock is granted, not at the first statement.
	batch.Queue("BEGIN ISOLATION LEVEL READ COMMITTED")
	batch.Queue(`SELECT pg_advisory_xact_lock($1)`, appendLockKey)
	batch.Queue(`SELECT coalesce(max(position), 0) FROM events`)
	batch.Queue(`SELECT s, coalesce((SELECT max(version) FROM events WHERE stream_id = s), 0)
		FROM unnest($1::text[]) AS s`, streams)
	br := conn.SendBatch(ctx, &batch)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("append lock: %w", err)
	}
	var head int64
	if err := br.QueryRow().Scan(&head); err != nil {
		return nil, fmt.Errorf("read head: %w", err)
	}
	rs, err := br.Query()
	if err != nil {
		return nil, fmt.Errorf("read versions: %w", err)
	}
	versions := make(map[string]int64, len(streams))
	for rs.Next() {
		var s string
		var v int64
		if err := rs.Scan(&s, &v); err != nil {
			rs.Close()
			return nil, fmt.Errorf("read versions: %w", err)
		}
		versions[s] = v
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("read versions: %w", err)
	}
	if err := br.Close(); err != nil {
		return nil, fmt.Errorf("read versions: %w", err)
	}
	return plan(head, versions), nil
}

func (b *postgresBackend) queueInsert(batch *pgx.Batch, rows []row) {
	if b.mode == insertBatch {
		for _, r := range rows {
			batch.Queue(`INSERT INTO events (`+pgEventCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, now())`,
				r.position, r.stream, r.version, r.typ, r.data, nilIfEmpty(r.metadata), r.companyID)
		}
		return
	}
	n := len(rows)
	pos, ver, company := make([]int64, n), make([]int64, n), make([]int64, n)
	stream, typ := make([]string, n), make([]string, n)
	data, meta := make([][]byte, n), make([][]byte, n)
	for i, r := range rows {
		pos[i], stream[i], ver[i], typ[i] = r.position, r.stream, r.version, r.typ
		data[i], meta[i], company[i] = r.data, nilIfEmpty(r.metadata), r.companyID
	}
	batch.Queue(`INSERT INTO events (`+pgEventCols+`)
		SELECT p, s, v, t, d, m, c, now()
		FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::json[], $6::json[], $7::bigint[])
			AS u(p, s, v, t, d, m, c)`,
		pos, stream, ver, typ, data, meta, company)
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

func (b *postgresBackend) streamVersion(ctx context.Context, stream string) (int64, error) {
	var v int64
	err := b.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM events WHERE stream_id = $1`, stream).Scan(&v)
	return v, err
}

func (b *postgresBackend) readStream(ctx context.Context, stream string, from, limit int64) ([]engine.RecordedEvent, error) {
	return b.query(ctx, `SELECT `+pgEventCols+` FROM events
		WHERE stream_id = $1 AND version >= $2 ORDER BY version LIMIT $3`, stream, from, limit)
}

// readAll needs nothing special for ordering: every statement reads one snapshot, and
// positions become visible in position order (see doc.go), so a snapshot holds a
// prefix of the journal.
func (b *postgresBackend) readAll(ctx context.Context, after, limit int64) ([]engine.RecordedEvent, error) {
	return b.query(ctx, `SELECT `+pgEventCols+` FROM events
		WHERE position > $1 ORDER BY position LIMIT $2`, after, limit)
}

func (b *postgresBackend) readCompany(ctx context.Context, companyID engine.ID, after, limit int64) ([]engine.RecordedEvent, error) {
	return b.query(ctx, `SELECT `+pgEventCols+` FROM events
		WHERE company_id = $1 AND position > $2 ORDER BY position LIMIT $3`, companyID, after, limit)
}

func (b *postgresBackend) query(ctx context.Context, q string, args ...any) ([]engine.RecordedEvent, error) {
	rs, err := b.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []engine.RecordedEvent
	for rs.Next() {
		var e engine.RecordedEvent
		if err := rs.Scan(&e.Position, &e.StreamID, &e.Version, &e.Type, &e.Data, &e.Metadata, &e.CompanyID, &e.RecordedAt); err != nil {
			return nil, err
		}
		e.RecordedAt = e.RecordedAt.UTC()
		out = append(out, e)
	}
	return out, rs.Err()
}

func (b *postgresBackend) head(ctx context.Context) (int64, error) {
	var h int64
	err := b.pool.QueryRow(ctx, `SELECT coalesce(max(position), 0) FROM events`).Scan(&h)
	return h, err
}

func (b *postgresBackend) saveSnapshot(ctx context.Context, snap engine.Snapshot) (bool, error) {
	var exists bool
	err := b.pool.QueryRow(ctx, `WITH ev AS (
			SELECT 1 FROM events WHERE stream_id = $1 AND version = $2
		), up AS (
			INSERT INTO snapshots (stream_id, version, type, data, recorded_at)
			SELECT $1, $2, $3, $4, now() FROM ev
			ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, type = excluded.type,
				data = excluded.data, recorded_at = excluded.recorded_at
			WHERE snapshots.version <= excluded.version
		)
		SELECT EXISTS (SELECT 1 FROM ev)`,
		snap.StreamID, snap.Version, snap.Type, nonNil(snap.Data)).Scan(&exists)
	return exists, err
}

func (b *postgresBackend) loadSnapshot(ctx context.Context, stream string) (engine.Snapshot, bool, error) {
	s := engine.Snapshot{StreamID: stream}
	err := b.pool.QueryRow(ctx, `SELECT version, type, data, recorded_at FROM snapshots WHERE stream_id = $1`, stream).
		Scan(&s.Version, &s.Type, &s.Data, &s.RecordedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return engine.Snapshot{}, false, nil
	}
	if err != nil {
		return engine.Snapshot{}, false, err
	}
	s.RecordedAt = s.RecordedAt.UTC()
	return s, true, nil
}
