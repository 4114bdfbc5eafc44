package journal

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"atende/engine"
)

// Polling of a reader waiting for older transactions (see Config.ReadWait).
const (
	readPollMin     = time.Millisecond
	readPollMax     = 16 * time.Millisecond
	fenceSampleRows = "64" // newest finished rows whose fences the high-water query considers
	maxPending      = 16   // reader fences kept while waiting for older transactions
)

// highWater is what one node's readers know about which positions are final (see
// doc.go, "Positions and ordering"): safe, below which every position is committed or
// rolled back for good, and the fences its readers took that older transactions
// still hold back.
type highWater struct {
	safe atomic.Int64 // only grows: a final position stays final

	mu      sync.Mutex
	pending []fence // in the order taken; guarded by mu
}

// fence says: every position ≤ pos was taken by a transaction whose id is < xid.
// Once xid is below the oldest running transaction id, every position ≤ pos is final.
type fence struct{ xid, pos int64 }

// raise records that every position ≤ h is final and drops the fences it makes moot.
func (hw *highWater) raise(h int64) int64 {
	for {
		cur := hw.safe.Load()
		if h <= cur {
			h = cur
			break
		}
		if hw.safe.CompareAndSwap(cur, h) {
			break
		}
	}
	hw.mu.Lock()
	kept := hw.pending[:0]
	for _, f := range hw.pending {
		if f.pos > h {
			kept = append(kept, f)
		}
	}
	hw.pending = kept
	hw.mu.Unlock()
	return h
}

// fences returns the pending fences as two arrays for the high-water query, and
// whether one of them already covers position top.
func (hw *highWater) fences(top int64) (xids, poss []int64, covered bool) {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	for _, f := range hw.pending {
		xids = append(xids, f.xid)
		poss = append(poss, f.pos)
		covered = covered || f.pos >= top
	}
	return xids, poss, covered
}

// add keeps f. When the list is full the newest is replaced: the oldest fences are the
// first to become usable, the newest covers the most.
func (hw *highWater) add(f fence) {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	if len(hw.pending) < maxPending {
		hw.pending = append(hw.pending, f)
		return
	}
	hw.pending[len(hw.pending)-1] = f
}

// sqlHighWater computes, in one snapshot: the best fence among the newest finished
// rows (their writers' fences), the best of this node's pending fences whose
// transaction is older than every running one, and the highest committed position.
//
// Archived positions (compact_postgres.go) are final: a stream is archived only below
// a proven mark. They count in both the mark and the top, for the case where the
// newest events have been archived too and events holds nothing at or above them.
const sqlHighWater = `SELECT
	greatest(coalesce((SELECT max(fence) FROM (SELECT fence FROM events
		WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
		ORDER BY position DESC LIMIT ` + fenceSampleRows + `) AS f), 0), ` + sqlArchiveTop + `),
	coalesce((SELECT max(f.pos) FROM unnest($1::bigint[], $2::bigint[]) AS f(xid, pos)
		WHERE f.xid::text::xid8 < pg_snapshot_xmin(pg_current_snapshot())), 0),
	greatest(coalesce((SELECT max(position) FROM events), 0), ` + sqlArchiveTop + `)`

// highWaterNow runs sqlHighWater and returns the high-water mark it proves and the
// highest committed position.
func (b *postgresBackend) highWaterNow(ctx context.Context, xids, poss []int64) (hwm, top int64, err error) {
	var fromRows, fromFences int64
	if err := b.pool.QueryRow(ctx, sqlHighWater, xids, poss).Scan(&fromRows, &fromFences, &top); err != nil {
		return 0, 0, fmt.Errorf("high-water mark: %w", err)
	}
	return max(fromRows, fromFences), top, nil
}

// takeFence commits a transaction that reads the sequence's last value and only then
// has an id assigned: every position ≤ that value was taken by a transaction with a
// lower id (writers have their id assigned before they take positions).
func (b *postgresBackend) takeFence(ctx context.Context) (fence, error) {
	var batch pgx.Batch
	batch.Queue("BEGIN")
	batch.Queue(sqlSeqFence)
	batch.Queue(`SELECT pg_current_xact_id()::text::bigint`)
	batch.Queue("COMMIT")
	br := b.pool.SendBatch(ctx, &batch)
	defer br.Close()
	var f fence
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&f.pos)
	}
	if err == nil {
		err = br.QueryRow().Scan(&f.xid)
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fence{}, fmt.Errorf("take fence: %w", err)
	}
	return f, nil
}

// readable returns a position up to which every event is final. It tries to cover
// every event committed so far (taking a fence of its own when the writers' fences do
// not); when nothing past after can be proven final yet although events are committed
// there, it waits up to Config.ReadWait for the older transactions holding them back to end,
// and then returns what it has (≤ after: nothing to read yet).
//
// A filtered reader (whole = true) waits instead until the mark covers every event
// committed when it began: its filter may match nothing between after and a lower
// mark, and an empty page must not tell it that the tenant has no more events when
// they are committed just past the mark. (Events committed later need not be
// covered, or a busy journal would keep it waiting.)
func (b *postgresBackend) readable(ctx context.Context, after, limit int64, whole bool) (int64, error) {
	// A reader catching up far behind needs no new proof for a full page.
	if h := b.hw.safe.Load(); !whole && h-after >= limit {
		return h, nil
	}
	deadline := time.Now().Add(b.readWait)
	wait := readPollMin
	var top, first int64
	for {
		xids, poss, _ := b.hw.fences(top)
		h, t, err := b.highWaterNow(ctx, xids, poss)
		if err != nil {
			return 0, err
		}
		top = t
		if first == 0 {
			first = t
		}
		h = b.hw.raise(h)
		if h >= top || (whole && h >= first) {
			return h, nil
		}
		// Events are committed past h but not proven final. A fence taken now
		// covers them (its value is read after they took their positions); it is
		// usable once every transaction older than it has ended.
		if _, _, covered := b.hw.fences(top); !covered {
			f, err := b.takeFence(ctx)
			if err != nil {
				return 0, err
			}
			b.hw.add(f)
			continue
		}
		if (h > after && !whole) || time.Now().After(deadline) {
			return h, nil
		}
		t2 := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t2.Stop()
			return 0, ctx.Err()
		case <-t2.C:
		}
		wait = min(2*wait, readPollMax)
	}
}

// readAll reads only final positions: those at or below the high-water mark. A
// transaction still open below it cannot exist, so a reader that has read position p
// never meets a position below p later (see doc.go).
func (b *postgresBackend) readAll(ctx context.Context, after, limit int64) ([]engine.RecordedEvent, error) {
	return b.readFinal(ctx, after, limit, false, 0)
}

// readCompany is readAll of one tenant's events (a dashboard rezone), bounded by the
// same high-water mark.
func (b *postgresBackend) readCompany(ctx context.Context, companyID engine.ID, after, limit int64) ([]engine.RecordedEvent, error) {
	return b.readFinal(ctx, after, limit, true, companyID)
}

// readFinal reads the events after position after, up to limit, that are final — of
// one tenant when company is not 0 — and then whole asks readable for a mark that
// covers every committed event. Below the archive's top it reads archived streams too
// (readWindow).
func (b *postgresBackend) readFinal(ctx context.Context, after, limit int64, whole bool, company engine.ID) ([]engine.RecordedEvent, error) {
	hwm, err := b.readable(ctx, after, limit, whole)
	if err != nil {
		return nil, err
	}
	for after < hwm {
		evs, reached, err := b.readWindow(ctx, after, hwm, limit, company)
		if err != nil || len(evs) > 0 {
			return evs, err
		}
		after = reached
	}
	return nil, nil
}

// head is the highest committed position. ReadAll reaches it once every transaction
// that could still commit below it has ended.
func (b *postgresBackend) head(ctx context.Context) (int64, error) {
	var h int64
	err := b.pool.QueryRow(ctx, `SELECT greatest(coalesce(max(position), 0), `+sqlArchiveTop+`) FROM events`).Scan(&h)
	return h, err
}
