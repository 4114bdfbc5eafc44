package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// journalView is everything a reader can learn from the journal: every event by
// position, each stream by version, each tenant's events, the head.
type journalView struct {
	all     []engine.RecordedEvent
	streams map[string][]engine.RecordedEvent
	tenants map[int64][]engine.RecordedEvent
	head    int64
}

// readView reads s whole, through pages of limit events.
func readView(t *testing.T, s *Store, limit int) journalView {
	t.Helper()
	ctx := context.Background()
	v := journalView{streams: map[string][]engine.RecordedEvent{}, tenants: map[int64][]engine.RecordedEvent{}}
	var err error
	if v.head, err = s.Head(ctx); err != nil {
		t.Fatal(err)
	}
	for after := int64(0); ; {
		page, err := s.ReadAll(ctx, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		if len(page) > limit {
			t.Fatalf("ReadAll after %d returned %d events, limit %d", after, len(page), limit)
		}
		v.all = append(v.all, page...)
		after = page[len(page)-1].Position
	}
	for _, e := range v.all {
		if _, ok := v.streams[e.StreamID]; ok {
			continue
		}
		evs, err := s.ReadStream(ctx, e.StreamID, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		v.streams[e.StreamID] = evs
	}
	for _, company := range []int64{1, 2} {
		for after := int64(0); ; {
			page, err := s.ReadCompany(ctx, company, after, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			v.tenants[company] = append(v.tenants[company], page...)
			after = page[len(page)-1].Position
		}
	}
	return v
}

func sameEvents(t *testing.T, what string, got, want []engine.RecordedEvent) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Position != w.Position || g.StreamID != w.StreamID || g.Version != w.Version || g.Type != w.Type ||
			!bytes.Equal(g.Data, w.Data) || !bytes.Equal(g.Metadata, w.Metadata) || (g.Metadata == nil) != (w.Metadata == nil) ||
			g.CompanyID != w.CompanyID || !g.RecordedAt.Equal(w.RecordedAt) || g.RecordedAt.Location() != time.UTC {
			t.Fatalf("%s: event %d = %+v, want %+v", what, i, g, w)
		}
	}
}

func sameView(t *testing.T, got, want journalView) {
	t.Helper()
	sameEvents(t, "ReadAll", got.all, want.all)
	if got.head != want.head {
		t.Errorf("head = %d, want %d", got.head, want.head)
	}
	for id, evs := range want.streams {
		sameEvents(t, "ReadStream "+id, got.streams[id], evs)
	}
	for c, evs := range want.tenants {
		sameEvents(t, fmt.Sprint("ReadCompany ", c), got.tenants[c], evs)
	}
}

func archivedStreams(t *testing.T, d *db.DB) map[string]int64 {
	t.Helper()
	rs, err := d.Pool.Query(context.Background(), `SELECT stream_id, last_version FROM events_archive`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	out := map[string]int64{}
	for rs.Next() {
		var id string
		var v int64
		if err := rs.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		out[id] = v
	}
	return out
}

// TestCompactionKeepsTheJournal archives streams and reads the journal back through
// every reader, at page sizes from 1 to all: it must be the same journal. Then the
// archived streams go on — appends check versions against the archive, snapshots may
// name archived versions — and a second compaction merges their new events in.
func TestCompactionKeepsTheJournal(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t, db.Postgres)
	s := newStore(t, d, Config{})

	// 30 streams of two tenants, interleaved: 1 to 8 events each, some with
	// metadata; a long stream; and a stream still being written above the bound.
	rng := rand.New(rand.NewPCG(1, 2))
	versions := map[string]int64{}
	for i := range 120 {
		id := fmt.Sprintf("ticket/%d", rng.IntN(30))
		e := ev(fmt.Sprintf("t%d", i%3), fmt.Sprintf(`{"i":%d,"text":"olá, mundo %d"}`, i, i))
		if i%4 == 0 {
			e.Metadata = []byte(fmt.Sprintf(`{"user":%d}`, i))
		}
		company := int64(1 + len(id)%2)
		mustAppend(t, s, company, id, versions[id], e)
		versions[id]++
	}
	for i := range 40 {
		mustAppend(t, s, 1, "connection/1", int64(i), ev("c", `{}`))
	}
	below, err := s.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, 2, "ticket/live", 0, ev("t0", `{"early":true}`))
	mustAppend(t, s, 2, "ticket/late", 0, ev("t0", `{"early":true}`))
	mustAppend(t, s, 2, "ticket/late", 1, ev("t0", `{"late":true}`))
	before := readView(t, s, 1000)

	if _, err := s.Compact(ctx, CompactConfig{Below: below, MinAge: -1, MaxEvents: 30}); err != nil {
		t.Fatal(err)
	}
	archived := archivedStreams(t, d)
	if len(archived) < 25 || archived["connection/1"] != 0 || archived["ticket/late"] != 0 {
		t.Fatalf("archived %v: want the ticket streams below the bound, not the 40-event stream nor one above the bound", archived)
	}
	var live int
	if err := d.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id LIKE 'ticket/%' AND position <= $1`, below).Scan(&live); err != nil {
		t.Fatal(err)
	}
	if live != 0 {
		t.Errorf("%d events of archived streams are still in events", live)
	}
	for _, limit := range []int{1, 3, 7, 1000} {
		sameView(t, readView(t, s, limit), before)
	}
	// Stale and current versions of an archived stream.
	var id string
	for id = range archived {
		break
	}
	if _, err := s.Append(ctx, before.streams[id][0].CompanyID, id, archived[id]-1, ev("t0", `{}`)); !errors.As(err, new(*engine.ConflictError)) {
		t.Fatalf("stale append to archived %s: %v, want a conflict", id, err)
	}
	res := mustAppend(t, s, before.streams[id][0].CompanyID, id, archived[id], ev("t9", `{"after":1}`))
	if res.Version != archived[id]+1 {
		t.Fatalf("append to archived %s at version %d, want %d", id, res.Version, archived[id]+1)
	}
	if err := s.SaveSnapshot(ctx, engine.Snapshot{StreamID: id, Version: archived[id], Type: "s", Data: []byte("x")}); err != nil {
		t.Fatalf("snapshot at an archived version: %v", err)
	}
	if err := s.SaveSnapshot(ctx, engine.Snapshot{StreamID: "ticket/none", Version: 1, Type: "s", Data: []byte("x")}); !errors.Is(err, engine.ErrInvalidEvent) {
		t.Fatalf("snapshot of a stream without events: %v", err)
	}
	got, err := s.ReadStream(ctx, id, archived[id], 0)
	if err != nil || len(got) != 2 || got[0].Version != archived[id] || got[1].Version != archived[id]+1 || string(got[1].Data) != `{"after":1}` {
		t.Fatalf("ReadStream of %s from its archive's last version: %+v, %v", id, got, err)
	}
	if got, err = s.ReadStream(ctx, id, 1, 2); err != nil || len(got) != min(2, len(before.streams[id])) || got[0].Version != 1 {
		t.Fatalf("ReadStream of %s limited to 2: %+v, %v", id, got, err)
	}

	// A second compaction merges the new event and archives the rest.
	afterAppend := readView(t, s, 1000)
	head, _ := s.Head(ctx)
	st, err := s.Compact(ctx, CompactConfig{Below: head, MinAge: -1, MaxEvents: 100})
	if err != nil {
		t.Fatal(err)
	}
	if st.Streams == 0 || st.Events == 0 || st.Bytes == 0 {
		t.Errorf("second compaction moved %+v", st)
	}
	archived = archivedStreams(t, d)
	if archived[id] != res.Version || archived["connection/1"] != 40 || archived["ticket/late"] != 2 {
		t.Fatalf("after the second compaction: %v", archived)
	}
	var left int
	if err := d.Pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d events left after compacting everything (%v)", left, err)
	}
	for _, limit := range []int{1, 5, 1000} {
		sameView(t, readView(t, s, limit), afterAppend)
	}
	var sizeBefore, sizeAfter int64
	sizeOf := `SELECT pg_total_relation_size('events')`
	if err := d.Pool.QueryRow(ctx, sizeOf).Scan(&sizeBefore); err != nil {
		t.Fatal(err)
	}
	if err := s.Reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	if err := d.Pool.QueryRow(ctx, sizeOf).Scan(&sizeAfter); err != nil {
		t.Fatal(err)
	}
	if sizeAfter >= sizeBefore {
		t.Errorf("events take %d bytes after Reclaim, %d before", sizeAfter, sizeBefore)
	}
	sameView(t, readView(t, s, 1000), afterAppend)
	// With every event archived, the head and the high-water mark still stand, and
	// a new journal on the database takes up where this one is.
	s2 := newStore(t, d, Config{})
	sameView(t, readView(t, s2, 100), afterAppend)
	next := mustAppend(t, s2, 1, "ticket/new", 0, ev("t0", `{}`))
	if next.LastPosition() <= head {
		t.Fatalf("append after compacting everything at %d, head was %d", next.LastPosition(), head)
	}
	page, err := s2.ReadAll(ctx, head, 10)
	if err != nil || len(page) != 1 || page[0].StreamID != "ticket/new" {
		t.Fatalf("tail after the head: %+v, %v", page, err)
	}
}

// TestCompactionBesideAppendsAndTails compacts again and again while writers append
// to the same streams and a reader tails: the reader sees every acknowledged event
// once, in increasing positions, and every stream reads back whole in version order.
func TestCompactionBesideAppendsAndTails(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t, db.Postgres)
	s := newStore(t, d, Config{})
	const writers, appends, streams = 4, 60, 12

	var acked atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range appends {
				id := fmt.Sprintf("ticket/%d", rng.IntN(streams))
				if _, err := s.Append(ctx, 1, id, engine.AnyVersion, ev("e", fmt.Sprintf(`{"w":%d,"i":%d}`, w, i))); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				acked.Add(1)
			}
		})
	}
	done := make(chan struct{})
	var compactions atomic.Int64
	var cwg sync.WaitGroup
	cwg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			head, err := s.Head(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := s.Compact(ctx, CompactConfig{Below: head, MinAge: -1}); err != nil {
				t.Errorf("compact: %v", err)
				return
			}
			compactions.Add(1)
		}
	})

	var seen []engine.RecordedEvent
	var after int64
	deadline := time.Now().Add(2 * time.Minute)
	for {
		page, err := s.ReadAll(ctx, after, 7)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			if e.Position <= after {
				t.Fatalf("position %d after %d", e.Position, after)
			}
			after = e.Position
		}
		seen = append(seen, page...)
		if len(page) == 0 {
			if int64(len(seen)) == writers*appends && acked.Load() == writers*appends {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("read %d events, %d acknowledged", len(seen), acked.Load())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	wg.Wait()
	close(done)
	cwg.Wait()
	if compactions.Load() == 0 {
		t.Fatal("no compaction ran beside the writers")
	}
	// Whatever the last compaction left, the streams read back whole.
	byStream := map[string][]engine.RecordedEvent{}
	for _, e := range seen {
		byStream[e.StreamID] = append(byStream[e.StreamID], e)
	}
	for id, want := range byStream {
		got, err := s.ReadStream(ctx, id, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range got {
			if e.Version != int64(i+1) {
				t.Fatalf("%s: version %d at %d", id, e.Version, i)
			}
		}
		sameEvents(t, "ReadStream "+id, got, want)
	}
	t.Logf("%d compactions beside %d appends", compactions.Load(), writers*appends)
}

func TestCompactOnSQLiteIsRefused(t *testing.T) {
	s := newStore(t, dbtest.Open(t, db.SQLite), Config{})
	if _, err := s.Compact(context.Background(), CompactConfig{Below: 10}); !errors.Is(err, ErrCompactUnsupported) {
		t.Fatalf("Compact on SQLite: %v", err)
	}
}

func TestArchiveRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 28, 10, 0, 0, 123456000, time.UTC)
	evs := []engine.RecordedEvent{
		{Position: 5, StreamID: "s", Version: 1, Type: "a", Data: []byte(`{"x":1}`), CompanyID: 3, RecordedAt: at},
		{Position: 9, StreamID: "s", Version: 2, Type: "b", Data: []byte(`{}`), Metadata: []byte(`{"u":1}`), CompanyID: 3, RecordedAt: at.Add(-time.Hour)},
		{Position: 1 << 40, StreamID: "s", Version: 3, Type: "a", Data: []byte(`"ç"`), CompanyID: 3, RecordedAt: at.Add(time.Microsecond)},
	}
	got, err := decodeArchive(nil, "s", 3, encodeArchive(evs))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, evs) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, evs)
	}
}

// FuzzDecodeArchive feeds the decoder hostile values: it errs, never panics, and
// whatever it accepts encodes back to the same events.
func FuzzDecodeArchive(f *testing.F) {
	f.Add(encodeArchive([]engine.RecordedEvent{{Position: 1, Version: 1, Type: "a", Data: []byte(`{}`), RecordedAt: time.UnixMicro(5).UTC()}}))
	f.Add([]byte{archiveV1})
	f.Add([]byte{archiveV1, 0x28, 0xb5, 0x2f, 0xfd})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		evs, err := decodeArchive(nil, "s", 1, v)
		if err != nil {
			if !errors.Is(err, errArchive) {
				t.Fatalf("error %v is not errArchive", err)
			}
			return
		}
		again, err := decodeArchive(nil, "s", 1, encodeArchive(evs))
		if err != nil || len(again) != len(evs) {
			t.Fatalf("re-encoded archive: %d events, %v; want %d", len(again), err, len(evs))
		}
	})
}

// BenchmarkDecodeArchive decodes a ticket's archive of 13 events with message-sized
// payloads: what a reopened old conversation's actor pays on top of its read.
func BenchmarkDecodeArchive(b *testing.B) {
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	var evs []engine.RecordedEvent
	for i := range 13 {
		evs = append(evs, engine.RecordedEvent{Position: int64(1000 + 7*i), StreamID: "ticket/1", Version: int64(i + 1),
			Type: "TicketMessageReceived", CompanyID: 2, RecordedAt: at.Add(time.Duration(i) * time.Minute),
			Data: []byte(fmt.Sprintf(`{"ticketId":1,"messageId":%d,"body":"Meu pedido chegou com um item faltando, podem verificar? %d","fromMe":false,"providerId":"3EB0000000000000%08X"}`, 100+i, i, i))})
	}
	v := encodeArchive(evs)
	for b.Loop() {
		if _, err := decodeArchive(nil, "ticket/1", 2, v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(v)), "archive-B")
}
