package db

import (
	"context"
	"fmt"
	"sync"
)

// IDs numbers new rows of event-sourced entities (tickets, messages) whose ids must
// exist before anything is written. It reserves blocks of BlockSize ids per name in
// table id_blocks, so a node makes one round trip per block; ids are unique across
// nodes and increase within a node, with gaps after a restart.
type IDs struct {
	db        *DB
	blockSize int64

	mu     sync.Mutex // guards blocks
	blocks map[string]*idBlock
}

type idBlock struct{ next, end int64 }

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
	defer a.mu.Unlock()
	b := a.blocks[name]
	if b == nil || b.next >= b.end {
		var end int64
		err := a.db.SQL.QueryRowContext(ctx, `INSERT INTO id_blocks (name, next) VALUES ($1, 1 + $2)
			ON CONFLICT (name) DO UPDATE SET next = id_blocks.next + $2
			RETURNING next`, name, a.blockSize).Scan(&end)
		if err != nil {
			return 0, fmt.Errorf("reserve ids %s: %w", name, err)
		}
		b = &idBlock{next: end - a.blockSize, end: end}
		a.blocks[name] = b
	}
	id := b.next
	b.next++
	return id, nil
}
