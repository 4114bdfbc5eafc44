package journal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"atende/engine"
	"atende/persistence/db"
)

// appendLockKey is the transaction-scoped advisory lock every group-commit
// transaction of every node took before the journal appended in parallel
// ("journal"). Only BenchmarkAppendThreePools takes it now (lockMode), to measure what
// removing it bought.
const appendLockKey int64 = 0x6a6f75726e616c

// positionSeq hands out event positions (migration 0900).
const positionSeq = "events_position_seq"

// sqlSeqFence reads the sequence's last handed-out value (0 before the first): every
// position at or below it has been taken already, by a transaction whose id was
// assigned before it took it.
const sqlSeqFence = `SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM ` + positionSeq

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
// trips: [BEGIN, fence, transaction id, positions, versions] then [INSERT, NOTIFY,
// COMMIT]. Transactions of any number of nodes run in parallel; readers stop at the
// high-water mark (highwater_postgres.go).
type postgresBackend struct {
	// static after newPostgres (tests and benchmarks set them before the first append)
	pool   *pgxpool.Pool
	mode   insertMode
	notify bool
	// lockMode runs the journal as it was before migration 0900 — the cluster-wide
	// advisory lock first in every transaction, positions head+1, … — for the
	// side-by-side benchmark only (its positions ignore the sequence, so a database
	// must not mix both modes).
	lockMode bool
	// hold, when set by a test, runs after the INSERT and before the COMMIT of every
	// group-commit transaction: a node that stalls with its append written but not
	// committed.
	hold func(ctx context.Context)
	// readWait is Config.ReadWait.
	readWait time.Duration

	hw highWater
	// fence is the member this process appends as (FenceAs); nil appends unchecked.
	fence atomic.Pointer[token]
}

func newPostgres(d *db.DB, readWait time.Duration) *postgresBackend {
	return &postgresBackend{pool: d.Pool, mode: insertUnnest, notify: true, readWait: readWait}
}

func (b *postgresBackend) close() {}

func (b *postgresBackend) appendTx(ctx context.Context, streams []string, events int, plan planFunc) (err error) {
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

	rows, fence, err := b.decide(ctx, conn, streams, events, plan)
	if err != nil {
		// Nothing is committed before the second pipeline is sent.
		return aborted(err)
	}
	var batch pgx.Batch
	if len(rows) > 0 {
		b.queueInsert(&batch, rows, fence)
	}
	if b.notify && len(rows) > 0 {
		batch.Queue(`SELECT pg_notify($1, $2)`, notifyChannel, strconv.FormatInt(rows[len(rows)-1].position, 10))
	}
	if b.hold != nil {
		if err := execBatch(ctx, conn, &batch); err != nil {
			return aborted(fmt.Errorf("insert: %w", err))
		}
		b.hold(ctx)
		batch = pgx.Batch{}
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

// decide opens the transaction and, in one pipeline: reads the fence (the highest
// position taken so far), has the transaction's id assigned — after the fence was
// read — reads the versions of streams, and takes positions for events events — after
// the id was assigned and the versions read. Then it plans the batch. Readers rely on
// the order (see doc.go): every position ≤ fence belongs to a transaction whose id is
// lower than this one's; and a version this transaction read was committed before
// its positions were taken, so within a stream positions increase with versions.
func (b *postgresBackend) decide(ctx context.Context, conn *pgxpool.Conn, streams []string, events int, plan planFunc) ([]row, int64, error) {
	var batch pgx.Batch
	// READ COMMITTED whatever the server's default: the versions must be read with a
	// snapshot taken now, not at some earlier statement.
	batch.Queue("BEGIN ISOLATION LEVEL READ COMMITTED")
	tok := b.fence.Load()
	if tok != nil {
		// The shared lock first: a revocation in progress holds it exclusively, so
		// this waits for it, and the check below — a statement of its own, with a
		// snapshot taken after the lock — then sees it (fence.go).
		batch.Queue(`SELECT pg_advisory_xact_lock_shared($1::int4, $2::int4)`, fenceNamespace, tok.key)
		batch.Queue(`SELECT coalesce((SELECT revoked_at IS NULL FROM journal_fences WHERE member = $1), false)`, tok.member)
	}
	if b.lockMode {
		// The journal before migration 0900: one committer at a time cluster-wide,
		// positions continue the head.
		batch.Queue(`SELECT pg_advisory_xact_lock($1)`, appendLockKey)
		batch.Queue(`SELECT coalesce(max(position), 0) FROM events`)
	} else {
		batch.Queue(sqlSeqFence)
		batch.Queue(`SELECT pg_current_xact_id()`)
	}
	batch.Queue(`SELECT s, `+sqlStreamVersion+` FROM unnest($1::text[]) AS s`, streams)
	if !b.lockMode {
		batch.Queue(`SELECT nextval('`+positionSeq+`') FROM generate_series(1, $1::int)`, events)
	}
	br := conn.SendBatch(ctx, &batch)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, 0, fmt.Errorf("begin: %w", err)
	}
	if tok != nil {
		if _, err := br.Exec(); err != nil {
			return nil, 0, fmt.Errorf("fence lock: %w", err)
		}
		var live bool
		if err := br.QueryRow().Scan(&live); err != nil {
			return nil, 0, fmt.Errorf("fence check: %w", err)
		}
		if !live {
			return nil, 0, ErrFenced
		}
	}
	var fence int64
	var positions []int64
	if b.lockMode {
		if _, err := br.Exec(); err != nil {
			return nil, 0, fmt.Errorf("append lock: %w", err)
		}
		var head int64
		if err := br.QueryRow().Scan(&head); err != nil {
			return nil, 0, fmt.Errorf("read head: %w", err)
		}
		for i := range int64(events) {
			positions = append(positions, head+1+i)
		}
	} else {
		if err := br.QueryRow().Scan(&fence); err != nil {
			return nil, 0, fmt.Errorf("read fence: %w", err)
		}
		if _, err := br.Exec(); err != nil {
			return nil, 0, fmt.Errorf("assign transaction id: %w", err)
		}
	}
	rs, err := br.Query()
	if err != nil {
		return nil, 0, fmt.Errorf("read versions: %w", err)
	}
	versions := make(map[string]int64, len(streams))
	for rs.Next() {
		var s string
		var v int64
		if err := rs.Scan(&s, &v); err != nil {
			rs.Close()
			return nil, 0, fmt.Errorf("read versions: %w", err)
		}
		versions[s] = v
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, 0, fmt.Errorf("read versions: %w", err)
	}
	if !b.lockMode {
		if positions, err = scanInts(br); err != nil {
			return nil, 0, fmt.Errorf("take positions: %w", err)
		}
		if len(positions) != events {
			return nil, 0, fmt.Errorf("take positions: got %d for %d events", len(positions), events)
		}
		// The set is what matters; sorted, a stream's events get increasing
		// positions in version order whatever order the sequence was called in.
		slices.Sort(positions)
	}
	if err := br.Close(); err != nil {
		return nil, 0, fmt.Errorf("take positions: %w", err)
	}
	i := 0
	next := func() int64 {
		// plan takes at most events positions: one per event of the batch.
		p := positions[i]
		i++
		return p
	}
	return plan(next, versions), fence, nil
}

// scanInts reads the next result of br as one bigint per row.
func scanInts(br pgx.BatchResults) ([]int64, error) {
	rs, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []int64
	for rs.Next() {
		var v int64
		if err := rs.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rs.Err()
}

// execBatch sends batch and reads every result.
func execBatch(ctx context.Context, conn *pgxpool.Conn, batch *pgx.Batch) error {
	br := conn.SendBatch(ctx, batch)
	var err error
	for range batch.Len() {
		if _, err = br.Exec(); err != nil {
			break
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// queueInsert queues the batch's rows. transaction_id is the column's default,
// pg_current_xact_id(), the id decide had assigned; fence is decide's.
func (b *postgresBackend) queueInsert(batch *pgx.Batch, rows []row, fence int64) {
	if b.mode == insertBatch {
		for _, r := range rows {
			batch.Queue(`INSERT INTO events (`+pgEventCols+`, fence) VALUES ($1, $2, $3, $4, $5, $6, $7, now(), $8)`,
				r.position, r.stream, r.version, r.typ, r.data, nilIfEmpty(r.metadata), r.companyID, fence)
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
	batch.Queue(`INSERT INTO events (`+pgEventCols+`, fence)
		SELECT p, s, v, t, d, m, c, now(), $8
		FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::json[], $6::json[], $7::bigint[])
			AS u(p, s, v, t, d, m, c)`,
		pos, stream, ver, typ, data, meta, company, fence)
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// sqlStreamVersion is the current version of stream s: its newest event's, or, when
// every event is archived, its archive's last (compact_postgres.go). COALESCE
// evaluates the second subquery only for a stream without live events.
const sqlStreamVersion = `coalesce((SELECT max(version) FROM events WHERE stream_id = s),
	(SELECT last_version FROM events_archive WHERE stream_id = s), 0)`

func (b *postgresBackend) streamVersion(ctx context.Context, stream string) (int64, error) {
	var v int64
	err := b.pool.QueryRow(ctx, `SELECT `+sqlStreamVersion+` FROM (SELECT $1::text AS s) AS q`, stream).Scan(&v)
	return v, err
}

// readStream reads the stream's live events, then its archive, in one round trip.
// The archive holds versions 1 … last_version and the live events the ones after. The
// two statements have snapshots of their own: a compaction committing between them
// moves live events that the first one read into the archive the second one reads,
// so only the archive's versions below the first live event read are taken.
func (b *postgresBackend) readStream(ctx context.Context, stream string, from, limit int64) ([]engine.RecordedEvent, error) {
	var batch pgx.Batch
	batch.Queue(`SELECT `+pgEventCols+` FROM events
		WHERE stream_id = $1 AND version >= $2 ORDER BY version LIMIT $3`, stream, from, limit)
	batch.Queue(`SELECT company_id, events FROM events_archive WHERE stream_id = $1 AND last_version >= $2`, stream, from)
	br := b.pool.SendBatch(ctx, &batch)
	defer br.Close()
	rs, err := br.Query()
	if err != nil {
		return nil, err
	}
	live, err := scanEvents(rs)
	if err != nil {
		return nil, err
	}
	var company engine.ID
	var blob []byte
	switch err := br.QueryRow().Scan(&company, &blob); {
	case errors.Is(err, pgx.ErrNoRows):
		sortBy(live, byVersion)
		return live, br.Close()
	case err != nil:
		return nil, err
	}
	archived, err := decodeArchive(nil, stream, company, blob)
	if err != nil {
		return nil, err
	}
	end := int64(math.MaxInt64)
	if len(live) > 0 {
		end = live[0].Version
	}
	out := slices.DeleteFunc(archived, func(e engine.RecordedEvent) bool { return e.Version < from || e.Version >= end })
	out = append(out, live...)
	sortBy(out, byVersion)
	if int64(len(out)) > limit {
		out = out[:limit]
	}
	return out, br.Close()
}

func (b *postgresBackend) query(ctx context.Context, q string, args ...any) ([]engine.RecordedEvent, error) {
	rs, err := b.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return scanEvents(rs)
}

// scanEvents reads rows of pgEventCols.
func scanEvents(rs pgx.Rows) ([]engine.RecordedEvent, error) {
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

func (b *postgresBackend) saveSnapshot(ctx context.Context, snap engine.Snapshot) (bool, error) {
	var exists bool
	err := b.pool.QueryRow(ctx, `WITH ev AS (
			SELECT 1 FROM events WHERE stream_id = $1 AND version = $2
			UNION ALL
			SELECT 1 FROM events_archive WHERE stream_id = $1 AND last_version >= $2
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
