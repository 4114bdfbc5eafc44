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

// Four journal instances on separate connection pools ("nodes", as separate processes
// would be) append concurrently — to shared streams, so appends also collide and are
// retried — while a reader on every node tails ReadAll. Every reader must see every
// acknowledged event exactly once, in increasing positions, and all readers the same
// sequence: an event that showed up after a higher position had been read would be
// one that reader skipped, the failure projections must never suffer. On SQLite
// positions are also gapless; on PostgreSQL a rolled-back transaction leaves a hole in
// the numbers but never in what readers see.
func TestTailSeesEveryPositionOnceInOrderAcrossNodes(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ctx := context.Background()
			url := dbtest.URL(t, dialect)
			const nodeCount, writersPerNode, appendsPerWriter = 4, 4, 50
			nodes := openStores(t, url, nodeCount, Config{})

			var writing sync.WaitGroup
			var ackedEvents atomic.Int64
			acked := make(chan []int64, nodeCount*writersPerNode*appendsPerWriter)
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

			// Each node's reader tails while all nodes write, until the writers are
			// done and it has read everything they were acknowledged.
			reads := make([][]engine.RecordedEvent, nodeCount)
			var reading sync.WaitGroup
			for r, node := range nodes {
				reading.Go(func() {
					var last int64
					finished := false
					for deadline := time.Now().Add(120 * time.Second); ; {
						if time.Now().After(deadline) {
							t.Errorf("reader %d stuck at position %d", r, last)
							return
						}
						wake := node.Notify()
						page, err := node.ReadAll(ctx, last, 1+rand.IntN(50))
						if err != nil {
							t.Errorf("reader %d: %v", r, err)
							return
						}
						for _, e := range page {
							if e.Position <= last {
								t.Errorf("reader %d read position %d after %d", r, e.Position, last)
								return
							}
							last = e.Position
						}
						reads[r] = append(reads[r], page...)
						if len(page) > 0 {
							continue
						}
						if finished && int64(len(reads[r])) >= ackedEvents.Load() {
							return
						}
						select {
						case <-writersDone:
							finished = true
						case <-wake:
						case <-time.After(2 * time.Millisecond): // the other nodes' commits
						}
					}
				})
			}
			reading.Wait()
			close(acked)
			if t.Failed() {
				return
			}
			ackedSet := map[int64]bool{}
			for ps := range acked {
				for _, p := range ps {
					if ackedSet[p] {
						t.Errorf("position %d acknowledged twice", p)
					}
					ackedSet[p] = true
				}
			}
			for r, got := range reads {
				if len(got) != len(ackedSet) || int64(len(got)) != ackedEvents.Load() {
					t.Errorf("reader %d saw %d events; writers acknowledged %d", r, len(got), ackedEvents.Load())
				}
				versions := map[string]int64{}
				for i, e := range got {
					if !ackedSet[e.Position] {
						t.Errorf("reader %d saw position %d, never acknowledged", r, e.Position)
					}
					if e.Version != versions[e.StreamID]+1 {
						t.Errorf("reader %d saw %s version %d after %d", r, e.StreamID, e.Version, versions[e.StreamID])
					}
					versions[e.StreamID] = e.Version
					if dialect == db.SQLite && e.Position != int64(i+1) {
						t.Errorf("reader %d: position %d at index %d on SQLite, want gapless", r, e.Position, i)
					}
					if o := reads[0]; r > 0 && i < len(o) && (o[i].Position != e.Position || o[i].StreamID != e.StreamID) {
						t.Errorf("reader %d saw %d:%s where reader 0 saw %d:%s", r, e.Position, e.StreamID, o[i].Position, o[i].StreamID)
					}
				}
			}
			for i, node := range nodes {
				if st := node.Stats(); st.Transactions == 0 || st.Transactions >= st.Appends {
					t.Errorf("node %d stats %+v: want batched transactions", i, st)
				}
			}
		})
	}
}

// A node stalls inside a group-commit transaction — its append inserted, the COMMIT
// not yet sent, as under SIGSTOP, a GC pause or a partition — while another node (its
// own pool) keeps appending. The other node's appends are acknowledged meanwhile (no
// cluster-wide lock waits for the stalled one), readers do not move past the stalled
// append's position, and once it commits every reader sees it, none skipped, in
// position order.
func TestStalledAppendHoldsReadersNotWriters(t *testing.T) {
	ctx := context.Background()
	url := dbtest.URL(t, db.Postgres)
	opened := openStores(t, url, 3, Config{ReadWait: 50 * time.Millisecond})
	stalled, live, reader := opened[0], opened[1], opened[2]
	mustAppend(t, live, 1, "ticket/before", 0, ev("e", `{}`))
	// The reader is tailing when the stall begins (a reader that first arrives during
	// it cannot tell committed events from ones the stalled transaction may still
	// write below them, and waits for it).
	// (Transaction ids are server-wide: another test's open transaction on the same
	// PostgreSQL server can hold it back for a while, hence the loop.)
	for deadline := time.Now().Add(30 * time.Second); ; {
		seen, err := reader.ReadAll(ctx, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("before the stall the reader saw %v", seen)
		}
	}

	inserted, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	// Cleanups run last-in first-out: a failed test lets the stalled node go before
	// its store is closed.
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	stalled.be.(*postgresBackend).hold = func(context.Context) {
		close(inserted)
		<-release
	}
	stalledRes := make(chan engine.AppendResult, 1)
	go func() {
		res, err := stalled.Append(ctx, 1, "ticket/stalled", 0, ev("e", `{"stalled":true}`))
		if err != nil {
			t.Errorf("stalled append: %v", err)
		}
		stalledRes <- res
	}()
	<-inserted

	// The live node's appends commit and are acknowledged while the other is stalled.
	var livePositions []int64
	for i := range 20 {
		ackCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		res, err := live.Append(ackCtx, 1, fmt.Sprintf("ticket/live/%d", i), 0, ev("e", `{}`))
		cancel()
		if err != nil {
			t.Fatalf("live append %d while a node is stalled: %v", i, err)
		}
		livePositions = append(livePositions, res.Positions...)
	}
	// Readers see what committed before the stall and nothing past the stalled
	// append: its position is lower than the live ones that committed after it.
	seen, err := reader.ReadAll(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].StreamID != "ticket/before" {
		t.Fatalf("while stalled a reader saw %d events (%v…): it read past an open append", len(seen), seen)
	}
	if h, _ := reader.Head(ctx); h != livePositions[len(livePositions)-1] {
		t.Errorf("head = %d, want the last live position %d", h, livePositions[len(livePositions)-1])
	}

	releaseOnce.Do(func() { close(release) })
	res := <-stalledRes
	if len(res.Positions) != 1 || res.Positions[0] >= livePositions[0] {
		t.Fatalf("stalled append at %v, want a position below the live ones %v", res.Positions, livePositions)
	}
	var all []engine.RecordedEvent
	for deadline := time.Now().Add(30 * time.Second); len(all) < 22 && time.Now().Before(deadline); {
		page, err := reader.ReadAll(ctx, seen[len(seen)-1].Position, 5)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, page...)
		all = seen
	}
	want := append([]int64{seen[0].Position, res.Positions[0]}, livePositions...)
	if len(all) != len(want) {
		t.Fatalf("after the stall readers saw %d events, want %d", len(all), len(want))
	}
	for i, e := range all {
		if e.Position != want[i] {
			t.Fatalf("event %d at position %d, want %d (order %v)", i, e.Position, want[i], want)
		}
	}
}

// openStores opens n stores with cfg on the migrated database at url, each on its own
// connection pool, as n nodes would.
func openStores(t *testing.T, url string, n int, cfg Config) []*Store {
	t.Helper()
	ctx := context.Background()
	var out []*Store
	for range n {
		d, err := db.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		if _, err := d.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		out = append(out, newStore(t, d, cfg))
	}
	return out
}

// A tenant's reader must not take "nothing past the mark for this tenant" for "no more
// events for this tenant": here the tenant's newest event is committed while an older
// transaction is open elsewhere on the server, and the only events below it that can
// be proven final belong to another tenant. ReadCompany must wait for the older
// transaction and return the event, not an empty page. (CI once saw a tenant's last
// event missing from a rebuild this way, when another package's test held a
// transaction open.)
func TestReadCompanyWaitsForItsTenantsCommittedEvents(t *testing.T) {
	ctx := context.Background()
	url := dbtest.URL(t, db.Postgres)
	s := openStores(t, url, 1, Config{ReadWait: time.Minute})[0]
	first := mustAppend(t, s, 2, "ticket/a", 0, ev("e", `{}`)).LastPosition()
	mustAppend(t, s, 1, "ticket/b", 0, ev("e", `{}`))
	// Let the reader prove both final before the older transaction begins.
	if all, err := readUntil(s, 2, 30*time.Second); err != nil || len(all) != 2 {
		t.Fatalf("before the open transaction: %d events, %v", len(all), err)
	}

	holder, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Close() })
	tx, err := holder.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// pg_current_xact_id assigns the transaction its id: from now on it holds back
	// the server's oldest running id.
	var xid string
	if err := tx.QueryRowContext(ctx, `SELECT pg_current_xact_id()::text`).Scan(&xid); err != nil {
		t.Fatal(err)
	}
	var ended atomic.Bool
	t.Cleanup(func() { _ = tx.Rollback() })

	last := mustAppend(t, s, 2, "ticket/c", 0, ev("e", `{}`)).LastPosition()
	go func() {
		time.Sleep(300 * time.Millisecond)
		ended.Store(true)
		_ = tx.Rollback()
	}()
	page, err := s.ReadCompany(ctx, 2, first, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 1 || page[0].Position != last {
		t.Fatalf("tenant 2 after %d: %d events (ended=%v), want its event at %d", first, len(page), ended.Load(), last)
	}
}
