package journal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// B4 and B5 of /work/shared/BENCHMARKS.md. Each benchmark builds its own database and
// runs a fixed number of operations per b.N iteration (run with -benchtime=1x), so a
// run is bounded in count and time whatever the machine.

// B4 workload: 1-event commands over 10k streams picked with a Zipf law, by 64
// concurrent appenders. Each stream has one writer at a time, as under its actor, and
// appends with the version it last wrote (no conflicts expected). With s=1.1 and v=50,
// the hottest 1% of streams take ~25% of the commands and the hottest one ~0.5%:
// a stream's own rate is capped at 1/commit latency, so a hotter head would measure
// one ticket's sequential latency rather than the journal.
const (
	b4Streams   = 10_000
	b4Appenders = 64
	b4ZipfS     = 1.1
	b4ZipfV     = 50
)

// appendFunc appends one event to stream at expected and returns its new version.
type appendFunc func(ctx context.Context, stream string, expected int64, data []byte) (int64, error)

type loadResult struct {
	ops     int
	elapsed time.Duration
	lat     []time.Duration
	cpu     time.Duration
}

// runB4 runs ops appends through fn from appenders goroutines and reports the figures.
func runB4(b *testing.B, appenders, ops int, fn appendFunc) {
	var total loadResult
	for range b.N {
		r := b4Load(b, appenders, ops, fn)
		total.ops += r.ops
		total.elapsed += r.elapsed
		total.cpu += r.cpu
		total.lat = append(total.lat, r.lat...)
	}
	reportLoad(b, total, "events/s")
}

func b4Load(b *testing.B, appenders, ops int, fn appendFunc) loadResult {
	ctx := context.Background()
	var locks [b4Streams]sync.Mutex
	var versions [b4Streams]int64 // guarded by locks[i]
	names := make([]string, b4Streams)
	for i := range names {
		names[i] = fmt.Sprintf("ticket/%d", i)
	}
	data := []byte(`{"body":"Olá, preciso de ajuda com meu pedido 12345","fromMe":false,"ack":0,"mediaType":"chat"}`)
	lat := make([]time.Duration, ops)
	var next atomic.Int64
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	start := time.Now()
	for a := range appenders {
		wg.Go(func() {
			zipf := rand.NewZipf(rand.New(rand.NewPCG(uint64(a), 42)), b4ZipfS, b4ZipfV, b4Streams-1)
			for {
				op := int(next.Add(1)) - 1
				if op >= ops {
					return
				}
				i := zipf.Uint64()
				locks[i].Lock()
				t0 := time.Now()
				v, err := fn(ctx, names[i], versions[i], data)
				lat[op] = time.Since(t0)
				if err != nil {
					locks[i].Unlock()
					b.Errorf("append %s@%d: %v", names[i], versions[i], err)
					return
				}
				versions[i] = v
				locks[i].Unlock()
			}
		})
	}
	wg.Wait()
	return loadResult{ops: ops, elapsed: time.Since(start), lat: lat, cpu: cpuTime() - cpu0}
}

func reportLoad(b *testing.B, r loadResult, rateUnit string) {
	slices.Sort(r.lat)
	pct := func(p float64) float64 {
		return float64(r.lat[int(p*float64(len(r.lat)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(r.ops)/r.elapsed.Seconds(), rateUnit)
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(r.cpu.Seconds()/float64(r.ops)*1000, "client-cpu-s/1k")
}

// cpuTime is this process's user+system CPU time (the benchmark client only; the
// PostgreSQL server's CPU is not included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func journalAppend(s *Store) appendFunc {
	return func(ctx context.Context, stream string, expected int64, data []byte) (int64, error) {
		res, err := s.Append(ctx, 1, stream, expected, engine.EventData{Type: "ticket.message_received", Data: data})
		return res.Version, err
	}
}

// BenchmarkAppendGroupCommit is B4 through the journal: group commit, version check,
// fsync on. postgres-unnest is the shipped insert; postgres-pipeline sends one INSERT
// per row in the same pipeline instead, for comparison; -128 doubles the appenders.
func BenchmarkAppendGroupCommit(b *testing.B) {
	cases := []struct {
		name      string
		dialect   db.Dialect
		mode      insertMode
		appenders int
		ops       int
	}{
		{"postgres-unnest", db.Postgres, insertUnnest, b4Appenders, 40_000},
		{"postgres-pipeline", db.Postgres, insertBatch, b4Appenders, 40_000},
		{"postgres-unnest-128", db.Postgres, insertUnnest, 2 * b4Appenders, 40_000},
		{"sqlite", db.SQLite, insertUnnest, b4Appenders, 40_000},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			d := dbtest.Open(b, c.dialect)
			s := newStore(b, d, Config{})
			if pg, ok := s.be.(*postgresBackend); ok {
				pg.mode = c.mode
			}
			runB4(b, c.appenders, c.ops, journalAppend(s))
			st := s.Stats()
			b.ReportMetric(float64(st.Events)/float64(max(st.Transactions, 1)), "events/tx")
			if st.Conflicts+st.Failures > 0 {
				b.Errorf("stats %+v: conflicts or failures in a conflict-free load", st)
			}
		})
	}
}

// BenchmarkAppendOneInsertPerEvent is B4's baseline: every append its own transaction.
// plain-insert is the naive journal — one autocommit INSERT per event into a table with
// a sequence position and UNIQUE (stream, version), no ordering guarantee for readers;
// journal-maxbatch-1 is this journal with group commit turned off.
func BenchmarkAppendOneInsertPerEvent(b *testing.B) {
	b.Run("postgres-plain-insert", func(b *testing.B) {
		d := dbtest.Open(b, db.Postgres)
		dbtest.MustExec(b, d, `CREATE TABLE events_baseline (
			position BIGSERIAL PRIMARY KEY, stream_id TEXT COLLATE "C" NOT NULL, version BIGINT NOT NULL,
			type TEXT NOT NULL, data JSON NOT NULL, metadata JSON, company_id BIGINT NOT NULL,
			recorded_at TIMESTAMPTZ NOT NULL DEFAULT now(), UNIQUE (stream_id, version))`)
		runB4(b, b4Appenders, 15_000, func(ctx context.Context, stream string, expected int64, data []byte) (int64, error) {
			_, err := d.Pool.Exec(ctx, `INSERT INTO events_baseline (stream_id, version, type, data, company_id)
				VALUES ($1, $2, $3, $4, 1)`, stream, expected+1, "ticket.message_received", data)
			return expected + 1, err
		})
	})
	b.Run("postgres-journal-maxbatch-1", func(b *testing.B) {
		d := dbtest.Open(b, db.Postgres)
		s := newStore(b, d, Config{MaxBatch: 1})
		runB4(b, b4Appenders, 3_000, journalAppend(s))
	})
}

// B5: activating a ticket = its latest snapshot + the events after it. 50 streams of
// 1000–1098 events (200-byte payloads) with a snapshot every 100 events (4 KB state),
// so 0–99 events follow the latest snapshot; 10k activations by 8 concurrent loaders.
// no-snapshot reads whole streams instead (200 activations), for comparison.
func BenchmarkReadStreamWithSnapshot(b *testing.B) {
	const streams, loaders = 50, 8
	for _, dialect := range dbtest.Dialects {
		d := dbtest.Open(b, dialect)
		s := newStore(b, d, Config{})
		seedB5(b, s, streams)
		for _, useSnap := range []bool{true, false} {
			name, activations := string(dialect), 10_000
			if !useSnap {
				name, activations = name+"-no-snapshot", 200
			}
			b.Run(name, func(b *testing.B) {
				var total loadResult
				for range b.N {
					r := b5Load(b, s, streams, activations, loaders, useSnap)
					total.ops += r.ops
					total.elapsed += r.elapsed
					total.cpu += r.cpu
					total.lat = append(total.lat, r.lat...)
				}
				reportLoad(b, total, "activations/s")
			})
		}
	}
}

func seedB5(b *testing.B, s *Store, streams int) {
	ctx := context.Background()
	payload := []byte(`{"body":"Bom dia! Seu pedido foi enviado e chega amanhã. Qualquer dúvida, responda esta mensagem, por favor. Obrigado!","fromMe":true,"ack":1,"mediaType":"chat"}`)
	state := []byte(`{"status":"open","messages":["` + strings.Repeat(`msg-123456789`, 300) + `"]}`)
	batch := make([]engine.EventData, 100)
	for i := range batch {
		batch[i] = engine.EventData{Type: "ticket.message_sent", Data: payload}
	}
	for i := range streams {
		stream := fmt.Sprintf("ticket/%d", i)
		length := 1000 + 2*i
		for v := int64(0); v < int64(length); {
			n := min(100, int64(length)-v)
			res, err := s.Append(ctx, 1, stream, v, batch[:n]...)
			if err != nil {
				b.Fatal(err)
			}
			v = res.Version
			if v%100 == 0 {
				if err := s.SaveSnapshot(ctx, engine.Snapshot{StreamID: stream, Version: v, Type: "ticket.v1", Data: state}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

func b5Load(b *testing.B, s *Store, streams, activations, loaders int, useSnap bool) loadResult {
	ctx := context.Background()
	lat := make([]time.Duration, activations)
	var next atomic.Int64
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	start := time.Now()
	for l := range loaders {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(l), 5))
			for {
				op := int(next.Add(1)) - 1
				if op >= activations {
					return
				}
				i := rng.IntN(streams)
				stream := fmt.Sprintf("ticket/%d", i)
				t0 := time.Now()
				from := int64(1)
				if useSnap {
					snap, ok, err := s.LoadSnapshot(ctx, stream)
					if err != nil || !ok {
						b.Errorf("load snapshot %s: %v %v", stream, ok, err)
						return
					}
					from = snap.Version + 1
				}
				evs, err := s.ReadStream(ctx, stream, from, 0)
				lat[op] = time.Since(t0)
				if err != nil || from-1+int64(len(evs)) != int64(1000+2*i) {
					b.Errorf("activate %s: %d events from %d, %v", stream, len(evs), from, err)
					return
				}
			}
		})
	}
	wg.Wait()
	return loadResult{ops: activations, elapsed: time.Since(start), lat: lat, cpu: cpuTime() - cpu0}
}

// BenchmarkAppendThreePools is B9's journal figure (issue 19): B4's load through three
// journal instances, each on its own connection pool as three processes would be, at
// once on one database. Each stream belongs to one instance (as to one node's actor).
// global-lock takes the cluster-wide advisory lock the journal used before it appended
// in parallel (postgresBackend.lockMode, kept for this comparison only); parallel is
// the shipped journal. Compare events/s and p99-ms of the two in the same run.
func BenchmarkAppendThreePools(b *testing.B) {
	const pools = 3
	for _, mode := range []struct {
		name      string
		lock      bool
		appenders int
	}{
		{"global-lock", true, b4Appenders}, {"parallel", false, b4Appenders},
		{"global-lock-24", true, 24}, {"parallel-24", false, 24},
	} {
		b.Run(mode.name, func(b *testing.B) {
			url := dbtest.URL(b, db.Postgres)
			var stores [pools]*Store
			for i := range stores {
				d, err := db.Open(context.Background(), url)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { d.Close() })
				if _, err := d.Migrate(context.Background()); err != nil {
					b.Fatal(err)
				}
				stores[i] = newStore(b, d, Config{})
				stores[i].be.(*postgresBackend).lockMode = mode.lock
			}
			var fns [pools]appendFunc
			for i, s := range stores {
				fns[i] = journalAppend(s)
			}
			runB4(b, mode.appenders, 30_000, func(ctx context.Context, stream string, expected int64, data []byte) (int64, error) {
				var n int
				fmt.Sscanf(stream, "ticket/%d", &n)
				return fns[n%pools](ctx, stream, expected, data)
			})
			var tx, ev uint64
			for _, s := range stores {
				st := s.Stats()
				tx, ev = tx+st.Transactions, ev+st.Events
				if st.Conflicts+st.Failures > 0 {
					b.Errorf("stats %+v: conflicts or failures in a conflict-free load", st)
				}
			}
			b.ReportMetric(float64(ev)/float64(max(tx, 1)), "events/tx")
		})
	}
}

// BenchmarkReadStreamArchived is B5 for a conversation reopened after its stream was
// compacted: 2,000 tickets of 13 message-sized events, activated (read whole, no
// snapshot) 10,000 times by 8 loaders, live and then archived, on PostgreSQL.
func BenchmarkReadStreamArchived(b *testing.B) {
	const streams, events, activations, loaders = 2000, 13, 10_000, 8
	ctx := context.Background()
	d := dbtest.Open(b, db.Postgres)
	s := newStore(b, d, Config{})
	for i := range streams {
		evs := make([]engine.EventData, events)
		for j := range evs {
			evs[j] = ev("TicketMessageReceived", fmt.Sprintf(`{"ticketId":%d,"messageId":%d,"body":"Meu pedido %d chegou com um item faltando, podem verificar?","fromMe":false,"providerId":"3EB0%016X"}`, i, i*events+j, j, i*events+j))
		}
		mustAppend(b, s, 1, fmt.Sprintf("ticket/%d", i), 0, evs...)
	}
	activate := func(b *testing.B) loadResult {
		lat := make([]time.Duration, activations)
		var next atomic.Int64
		var wg sync.WaitGroup
		cpu0, start := cpuTime(), time.Now()
		for l := range loaders {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(l), 9))
				for op := int(next.Add(1)) - 1; op < activations; op = int(next.Add(1)) - 1 {
					stream := fmt.Sprintf("ticket/%d", rng.IntN(streams))
					t0 := time.Now()
					evs, err := s.ReadStream(ctx, stream, 1, 0)
					lat[op] = time.Since(t0)
					if err != nil || len(evs) != events {
						b.Errorf("activate %s: %d events, %v", stream, len(evs), err)
						return
					}
				}
			})
		}
		wg.Wait()
		return loadResult{ops: activations, elapsed: time.Since(start), lat: lat, cpu: cpuTime() - cpu0}
	}
	for _, archived := range []bool{false, true} {
		name := "live"
		if archived {
			name = "archived"
			head, err := s.Head(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if st, err := s.Compact(ctx, CompactConfig{Below: head, MinAge: -1}); err != nil || st.Streams != streams {
				b.Fatalf("compact: %+v, %v", st, err)
			}
		}
		b.Run(name, func(b *testing.B) {
			var total loadResult
			for range b.N {
				r := activate(b)
				total.ops += r.ops
				total.elapsed += r.elapsed
				total.cpu += r.cpu
				total.lat = append(total.lat, r.lat...)
			}
			reportLoad(b, total, "activations/s")
		})
	}
}
