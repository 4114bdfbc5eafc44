package journal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// Two journal instances on separate connection pools ("nodes") append concurrently
// while a reader tails ReadAll. The reader must see every position exactly once and in
// order: positions are gapless, so any event whose position is not last+1 would be
// one read past an event that was not yet visible — the skip projections must never
// suffer.
func TestTailSeesEveryPositionOnceInOrderAcrossNodes(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ctx := context.Background()
			url := dbtest.URL(t, dialect)
			var nodes [2]*Store
			for i := range nodes {
				d, err := db.Open(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { d.Close() })
				if _, err := d.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				nodes[i] = newStore(t, d, Config{})
			}

			const writersPerNode, appendsPerWriter = 6, 60
			var writing sync.WaitGroup
			var ackedEvents atomic.Int64
			acked := make(chan []int64, 2*writersPerNode*appendsPerWriter)
			for n, node := range nodes {
				for w := range writersPerNode {
					writing.Go(func() {
						rng := rand.New(rand.NewPCG(uint64(n), uint64(w)))
						for range appendsPerWriter {
							evs := make([]engine.EventData, 1+rng.IntN(3))
							for i := range evs {
								evs[i] = ev("e", fmt.Sprintf(`{"node":%d,"writer":%d}`, n, w))
							}
							res, err := node.Append(ctx, int64(n+1), fmt.Sprintf("ticket/%d", rng.IntN(40)), engine.AnyVersion, evs...)
							if err != nil {
								t.Errorf("node %d writer %d: %v", n, w, err)
								return
							}
							ackedEvents.Add(int64(len(res.Positions)))
							acked <- res.Positions
						}
					})
				}
			}
			writersDone := make(chan struct{})
			go func() { writing.Wait(); close(writersDone) }()

			// The reader tails through node 0 while both nodes write.
			var last int64
			seen := 0
			finished := false
			for deadline := time.Now().Add(60 * time.Second); ; {
				if time.Now().After(deadline) {
					t.Fatalf("reader stuck at position %d", last)
				}
				wake := nodes[0].Notify()
				page, err := nodes[0].ReadAll(ctx, last, 1+rand.IntN(50))
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range page {
					if e.Position != last+1 {
						t.Fatalf("read position %d after %d: out of order or skipped", e.Position, last)
					}
					last = e.Position
					seen++
				}
				if len(page) > 0 {
					continue
				}
				if finished {
					break
				}
				select {
				case <-writersDone:
					finished = true // one more pass reads what the last commits left
				case <-wake:
				case <-time.After(2 * time.Millisecond): // the other node's commits
				}
			}
			close(acked)
			ackedSet := map[int64]bool{}
			for ps := range acked {
				for _, p := range ps {
					if ackedSet[p] {
						t.Errorf("position %d acknowledged twice", p)
					}
					ackedSet[p] = true
				}
			}
			if int64(seen) != ackedEvents.Load() || len(ackedSet) != seen || last != int64(seen) {
				t.Fatalf("reader saw %d events up to %d; writers acknowledged %d", seen, last, ackedEvents.Load())
			}
			for i, node := range nodes {
				if st := node.Stats(); st.Transactions == 0 || st.Transactions >= st.Appends {
					t.Errorf("node %d stats %+v: want batched transactions", i, st)
				}
			}
		})
	}
}
