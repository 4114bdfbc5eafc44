package journal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"atende/engine"
)

// Compaction (PostgreSQL). Most of the journal is conversations that ended long ago:
// their events are read again only when one is reopened or a read model is rebuilt,
// yet each costs a row of ~280 B and three index entries. Compact moves every stream
// that has been quiet for a while and lies wholly below a given position (every
// projection's checkpoint) out of events into one row of events_archive: its events
// encoded together and compressed (archive.go), one index entry a stream.
//
// Readers see one journal. ReadStream reads a stream's archive and its later live
// events in one statement; ReadAll and ReadCompany, when they are below the highest
// archived position, read the archived streams overlapping the window of positions
// they read (readWindow), in the same statement as the live events, and merge them in
// position order. One statement has one snapshot, so a compaction committing
// meanwhile is seen whole or not at all: no event is read twice or missed.
//
// What stays true: positions do not change; versions of a stream are its archive's
// 1 … last_version, then its live events' (a stream is archived only as a whole,
// with every event at or below a proven high-water mark, so a later append has a
// higher position and version); the stream's version for an append is its newest
// live event's, else its archive's (sqlStreamVersion); a snapshot may be saved at an
// archived version. A stream receiving events again after compaction keeps its
// archive and gains live events; a later compaction merges them into it.

// sqlArchiveTop is the highest archived position, 0 when nothing is archived.
const sqlArchiveTop = `coalesce((SELECT max(last_position) FROM events_archive), 0)`

// sqlArchiveCols selects an archive row in the shape of pgEventCols followed by the
// encoded events (live rows have NULL there).
const sqlArchiveCols = `first_position, stream_id, last_version, '', NULL::json, NULL::json, company_id, now(), events`

// minWindow is the smallest window of positions a read below the archive's top
// covers: every archived stream overlapping the window is fetched and decoded, so a
// window much smaller than a page would fetch the same streams again and again.
const minWindow = 1024

// scanWithArchives reads rows of pgEventCols followed by an archive (NULL for a live
// event). It returns the live events in the rows' order and the archived ones decoded.
func scanWithArchives(rs pgx.Rows) (live, archived []engine.RecordedEvent, err error) {
	defer rs.Close()
	for rs.Next() {
		var e engine.RecordedEvent
		var blob []byte
		if err := rs.Scan(&e.Position, &e.StreamID, &e.Version, &e.Type, &e.Data, &e.Metadata, &e.CompanyID, &e.RecordedAt, &blob); err != nil {
			return nil, nil, err
		}
		if blob == nil {
			e.RecordedAt = e.RecordedAt.UTC()
			live = append(live, e)
			continue
		}
		if archived, err = decodeArchive(archived, e.StreamID, e.CompanyID, blob); err != nil {
			return nil, nil, err
		}
	}
	return live, archived, rs.Err()
}

// readWindow reads final events after after, at most limit, of one tenant when
// company is not 0. Above the archive's top (the usual case: a tail) it is the live
// events' query alone. Below, it reads a window of positions, (after, end], from both
// tables and merges them; it returns the events and the position up to which it has
// read everything, from which an empty answer goes on.
func (b *postgresBackend) readWindow(ctx context.Context, after, hwm, limit int64, company engine.ID) ([]engine.RecordedEvent, int64, error) {
	end := min(hwm, after+max(limit, minWindow))
	filter := ""
	args := []any{after, hwm, limit, end}
	if company != 0 {
		filter = "company_id = $5 AND "
		args = append(args, company)
	}
	rs, err := b.pool.Query(ctx, `(SELECT `+pgEventCols+`, NULL::bytea FROM events
			WHERE `+filter+`position > $1 AND position <= $2 ORDER BY position LIMIT $3)
		UNION ALL
		(SELECT `+sqlArchiveCols+` FROM events_archive
			WHERE `+filter+`int8range(first_position, last_position, '[]') && int8range($1, $4, '(]'))
		UNION ALL
		(SELECT `+sqlArchiveTop+`, '', 0, '', NULL, NULL, 0, now(), NULL)`, args...)
	if err != nil {
		return nil, 0, err
	}
	live, archived, err := scanWithArchives(rs)
	if err != nil {
		return nil, 0, err
	}
	// The row of version 0 is the archive's top; UNION ALL promises no order.
	var top int64
	live = slices.DeleteFunc(live, func(e engine.RecordedEvent) bool {
		if e.Version == 0 {
			top = e.Position
			return true
		}
		return false
	})
	sortBy(live, byPosition)
	if top <= after {
		// Nothing archived after after, in this statement's snapshot: the live
		// events are all there is.
		if int64(len(live)) == limit {
			return live, live[len(live)-1].Position, nil
		}
		return live, hwm, nil
	}
	// Everything up to cut has been read: the window's archived streams, and the
	// live events unless the page filled first.
	cut := end
	if int64(len(live)) == limit {
		cut = min(cut, live[len(live)-1].Position)
	}
	out := live[:0]
	for _, e := range live {
		if e.Position <= cut {
			out = append(out, e)
		}
	}
	for _, e := range archived {
		if e.Position > after && e.Position <= cut {
			out = append(out, e)
		}
	}
	sortBy(out, byPosition)
	if int64(len(out)) > limit {
		out = out[:limit]
	}
	return out, cut, nil
}

// sortBy sorts evs by cmp unless they already are: UNION ALL promises no order, but
// PostgreSQL returns each branch's rows in its order, so the check usually suffices.
func sortBy(evs []engine.RecordedEvent, by func(x, y engine.RecordedEvent) int) {
	if !slices.IsSortedFunc(evs, by) {
		slices.SortFunc(evs, by)
	}
}

func byPosition(x, y engine.RecordedEvent) int { return cmp.Compare(x.Position, y.Position) }

func byVersion(x, y engine.RecordedEvent) int { return cmp.Compare(x.Version, y.Version) }

// CompactConfig chooses what Compact moves.
type CompactConfig struct {
	// Below: only streams whose every event is at or below this position are
	// compacted — the lowest checkpoint of the journal's readers that must not fall
	// below the archive (the projections'). The journal lowers it to its proven
	// high-water mark.
	Below int64
	// MinAge: only streams whose newest event is older than this are compacted
	// (0: 24 hours; negative: any age). A conversation still going would otherwise
	// be rewritten at every compaction.
	MinAge time.Duration
	// MaxEvents: streams with more live events are left as they are (0: 1,000); a
	// long stream is read from its snapshot, and rewriting it whole would cost more
	// than it saves.
	MaxEvents int
	// Batch is the number of streams moved by one transaction (0: 500).
	Batch int
	// Company, when not 0, compacts that tenant's streams only.
	Company engine.ID
}

// CompactStats says what one Compact moved.
type CompactStats struct {
	Streams int   // streams archived or merged into their archive
	Events  int   // events moved out of events
	Bytes   int64 // encoded size of the archives written
}

// ErrCompactUnsupported is returned by Compact on SQLite, whose journal keeps every
// event in events.
var ErrCompactUnsupported = errors.New("journal: compaction needs PostgreSQL")

// compactLockKey serialises compactions of all nodes ("compact").
const compactLockKey int64 = 0x636f6d70616374

// Compact moves quiet streams below cfg.Below into the archive, cfg.Batch streams a
// transaction, and reports what it moved. It may run on any node at any time, beside
// appends and reads; compactions of several nodes take turns.
func (s *Store) Compact(ctx context.Context, cfg CompactConfig) (CompactStats, error) {
	b, ok := s.be.(*postgresBackend)
	if !ok {
		return CompactStats{}, ErrCompactUnsupported
	}
	if cfg.MinAge == 0 {
		cfg.MinAge = 24 * time.Hour
	}
	if cfg.MaxEvents <= 0 {
		cfg.MaxEvents = 1000
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 500
	}
	// Positions at or below the proven mark are final: no transaction that could
	// still commit an event there is running.
	hwm, err := b.readable(ctx, 0, 1, true)
	if err != nil {
		return CompactStats{}, fmt.Errorf("compact: %w", err)
	}
	below := min(cfg.Below, hwm)
	var stats CompactStats
	if below <= 0 {
		return stats, nil
	}
	cutoff := time.Now().Add(-max(cfg.MinAge, 0))
	rs, err := b.pool.Query(ctx, `SELECT stream_id FROM events GROUP BY stream_id
		HAVING max(position) <= $1 AND max(recorded_at) < $2 AND count(*) <= $3
			AND min(company_id) = max(company_id) AND ($4 = 0 OR min(company_id) = $4)
		ORDER BY min(position)`, below, cutoff, cfg.MaxEvents, cfg.Company)
	if err != nil {
		return stats, fmt.Errorf("compact: list streams: %w", err)
	}
	streams, err := pgx.CollectRows(rs, pgx.RowTo[string])
	if err != nil {
		return stats, fmt.Errorf("compact: list streams: %w", err)
	}
	for len(streams) > 0 {
		n := min(len(streams), cfg.Batch)
		st, err := b.compactBatch(ctx, streams[:n], below)
		stats.Streams += st.Streams
		stats.Events += st.Events
		stats.Bytes += st.Bytes
		if err != nil {
			return stats, fmt.Errorf("compact: %w", err)
		}
		streams = streams[n:]
	}
	return stats, nil
}

// compactBatch moves the events at or below below of streams into their archives in
// one transaction, merging an archive a stream already has.
func (b *postgresBackend) compactBatch(ctx context.Context, streams []string, below int64) (CompactStats, error) {
	var stats CompactStats
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, compactLockKey); err != nil {
			return err
		}
		// Only compactions write events_archive, and they hold the lock: the rows
		// read here stay as they are until this transaction rewrites them.
		rs, err := tx.Query(ctx, `WITH moved AS (DELETE FROM events WHERE stream_id = ANY($1) AND position <= $2 RETURNING `+pgEventCols+`)
			SELECT *, NULL::bytea FROM moved
			UNION ALL
			SELECT `+sqlArchiveCols+` FROM events_archive WHERE stream_id = ANY($1)`, streams, below)
		if err != nil {
			return err
		}
		live, archived, err := scanWithArchives(rs)
		if err != nil {
			return err
		}
		byStream := map[string][]engine.RecordedEvent{}
		for _, e := range archived {
			byStream[e.StreamID] = append(byStream[e.StreamID], e)
		}
		for _, e := range live {
			byStream[e.StreamID] = append(byStream[e.StreamID], e)
		}
		var (
			ids                       []string
			companies, first, last, v []int64
			blobs                     [][]byte
		)
		for id, evs := range byStream {
			slices.SortFunc(evs, byVersion)
			for i, e := range evs {
				// The archive must hold versions 1 … n with positions increasing,
				// or readers and appends would be wrong about the stream.
				if e.Version != int64(i+1) || (i > 0 && e.Position <= evs[i-1].Position) || e.CompanyID != evs[0].CompanyID {
					return fmt.Errorf("stream %s: version %d at %d does not continue its archive", id, e.Version, i)
				}
			}
			blob := encodeArchive(evs)
			ids = append(ids, id)
			companies = append(companies, evs[0].CompanyID)
			first = append(first, evs[0].Position)
			last = append(last, evs[len(evs)-1].Position)
			v = append(v, int64(len(evs)))
			blobs = append(blobs, blob)
			stats.Bytes += int64(len(blob))
		}
		if len(ids) == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `INSERT INTO events_archive (stream_id, company_id, first_position, last_position, last_version, events)
			SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bytea[])
			ON CONFLICT (stream_id) DO UPDATE SET company_id = excluded.company_id, first_position = excluded.first_position,
				last_position = excluded.last_position, last_version = excluded.last_version, events = excluded.events`,
			ids, companies, first, last, v, blobs)
		stats.Streams, stats.Events = len(ids), len(live)
		return err
	})
	if err != nil {
		return CompactStats{}, err
	}
	return stats, nil
}

// Reclaim gives back the disk space a large compaction freed: VACUUM returns the
// emptied pages at the end of events to the file system, and REINDEX … CONCURRENTLY
// rebuilds its indexes from the rows left (a vacuum leaves an index's emptied pages
// in its file). Both run beside appends and reads. Worth it after a one-off
// compaction of most of the journal (an import); the periodic compaction needs none,
// since new events reuse the space the old ones left.
func (s *Store) Reclaim(ctx context.Context) error {
	b, ok := s.be.(*postgresBackend)
	if !ok {
		return ErrCompactUnsupported
	}
	for _, q := range []string{`VACUUM (ANALYZE) events`, `VACUUM (ANALYZE) events_archive`, `REINDEX TABLE CONCURRENTLY events`} {
		if _, err := b.pool.Exec(ctx, q); err != nil {
			return fmt.Errorf("reclaim: %s: %w", q, err)
		}
	}
	return nil
}
