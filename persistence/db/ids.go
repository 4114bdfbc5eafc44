package db

import (
	"context"
	"fmt"
	"sync"
	"time"

	"atende/goroutine"
)

// IDs numbers new rows of event-sourced entities (tickets, messages) whose ids must
// exist before anything is written. It reserves blocks of BlockSize ids per name in
// table id_blocks, so a node makes one round trip per block; ids are unique across
// nodes and increase within a node, with gaps after a restart (and where a caller
// passes ids over: a cluster's connection keeps a ticket id whose actor is placed on
// its own node).
//
// Next is called on hot paths (every inbound message takes an id inside its
// connection's actor), so a block is reserved ahead: once half of the current block
// is handed out, the next one is reserved in the background, and Next waits for the
// database only when that reservation has not come back by the time the current
// block runs out.
type IDs struct {
	db        *DB
	blockSize int64

	mu     sync.Mutex // guards blocks
	blocks map[string]*idBlock
}

// idBlock is a name's current block [next, end) and the one reserved after it.
type idBlock struct {
	next, end int64
	spare     *idRange      // reserved ahead, not yet in use
	fetching  chan struct{} // closed when the reservation ahead is done; nil when none is running
}

type idRange struct{ next, end int64 }

// reserveAheadTimeout bounds a background reservation; a failed one is retried by
// the next Next that needs it, with the caller's context.
const reserveAheadTimeout = 10 * time.Second

// NewIDs returns an allocator reserving blockSize ids at a time (100 when ≤ 0).
func NewIDs(d *DB, blockSize int64) *IDs {
	if blockSize <= 0 {
		blockSize = 100
	}
	return &IDs{db: d, blockSize: blockSize, blocks: map[string]*idBlock{}}
}

// Next returns a fresh id for name ("ticket", "message", …).
func (a *IDs) Next(ctx context.Context, name string) (int64, error) {
	a.mu.Lock()
	b := a.blocks[name]
	if b == nil {
		b = &idBlock{}
		a.blocks[name] = b
	}
	for b.next >= b.end {
		if b.spare != nil {
			b.next, b.end, b.spare = b.spare.next, b.spare.end, nil
			break
		}
		if wait := b.fetching; wait != nil {
			// The reservation ahead is on its way: wait for it rather than make
			// a second round trip.
			a.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return 0, fmt.Errorf("reserve ids %s: %w", name, ctx.Err())
			}
			a.mu.Lock()
			continue // its block, or a reservation here with the caller's context if it failed
		}
		r, err := a.reserve(ctx, name)
		if err != nil {
			a.mu.Unlock()
			return 0, err
		}
		b.next, b.end = r.next, r.end
	}
	id := b.next
	b.next++
	if b.spare == nil && b.fetching == nil && b.end-b.next <= a.blockSize/2 {
		a.reserveAhead(name, b)
	}
	a.mu.Unlock()
	return id, nil
}

// reserveAhead reserves name's next block in the background. Called with a.mu held.
func (a *IDs) reserveAhead(name string, b *idBlock) {
	done := make(chan struct{})
	b.fetching = done
	goroutine.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), reserveAheadTimeout)
		r, err := a.reserve(ctx, name)
		cancel()
		a.mu.Lock()
		if err == nil {
			b.spare = &r
		}
		b.fetching = nil
		a.mu.Unlock()
		close(done)
	})
}

// reserve takes the next block of name's ids from the database.
func (a *IDs) reserve(ctx context.Context, name string) (idRange, error) {
	var end int64
	err := a.db.SQL.QueryRowContext(ctx, `INSERT INTO id_blocks (name, next) VALUES ($1, 1 + $2)
		ON CONFLICT (name) DO UPDATE SET next = id_blocks.next + $2
		RETURNING next`, name, a.blockSize).Scan(&end)
	if err != nil {
		return idRange{}, fmt.Errorf("reserve ids %s: %w", name, err)
	}
	return idRange{next: end - a.blockSize, end: end}, nil
}
