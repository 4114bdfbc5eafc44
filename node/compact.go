package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/goroutine"
	"atende/persistence/db"
	"atende/persistence/journal"
	"atende/persistence/store"
)

// CompactJournal moves the journal's streams that have been quiet for minAge (any
// age when negative), of one tenant when company is not 0, into its archive
// (persistence/journal, "Compaction"), below the lowest checkpoint of the read
// models: a projection never has to read an archived stream unless it is rebuilt.
// PostgreSQL only; on SQLite it does nothing.
func CompactJournal(ctx context.Context, d *db.DB, j *journal.Store, company engine.ID, minAge time.Duration, log zerolog.Logger) (journal.CompactStats, error) {
	if d.Dialect != db.Postgres {
		return journal.CompactStats{}, nil
	}
	ps, _, err := readModels(store.NewSettings(d, nil), log)
	if err != nil {
		return journal.CompactStats{}, err
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name()
	}
	// A read model without a checkpoint row has not started: it would read
	// from 0, so nothing may be archived yet.
	var below int64
	var found int
	if err := d.Pool.QueryRow(ctx, `SELECT coalesce(min(position), 0), count(*) FROM projection_checkpoints WHERE name = ANY($1)`,
		names).Scan(&below, &found); err != nil {
		return journal.CompactStats{}, fmt.Errorf("compact: read checkpoints: %w", err)
	}
	if found < len(names) {
		return journal.CompactStats{}, nil
	}
	start := time.Now()
	st, err := j.Compact(ctx, journal.CompactConfig{Below: below, MinAge: minAge, Company: company})
	if st.Streams > 0 || err != nil {
		log.Info().Err(err).Int("streams", st.Streams).Int("events", st.Events).Int64("bytes", st.Bytes).
			Dur("took", time.Since(start)).Msg("journal compacted")
	}
	return st, err
}

// compactEvery is how often a node looks for streams to compact, given the age
// that makes a stream quiet.
func compactEvery(after time.Duration) time.Duration {
	return min(max(after/4, time.Minute), time.Hour)
}

// startCompaction compacts the journal every compactEvery while the node runs, on
// PostgreSQL and when Config.CompactAfter is not 0. Every node does it; the journal
// lets one compaction run at a time, and the next finds the work done.
func (n *Node) startCompaction(l *live) {
	if n.db.Dialect != db.Postgres || n.cfg.CompactAfter <= 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	goroutine.Go(func() {
		defer close(done)
		t := time.NewTicker(compactEvery(n.cfg.CompactAfter))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if _, err := CompactJournal(ctx, n.db, l.journal, 0, n.cfg.CompactAfter, n.log); err != nil && !errors.Is(err, context.Canceled) {
				n.log.Warn().Err(err).Msg("journal compaction failed; retried at the next round")
			}
		}
	})
	n.onClose(func(context.Context) error { cancel(); <-done; return nil })
}
