package journal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// The conformance suite: every behaviour of engine.Journal, run against each dialect
// by dbtest.Each on a fresh database.

func newStore(t testing.TB, d *db.DB, cfg Config) *Store {
	t.Helper()
	s, err := New(d, cfg)
	if err != nil {
		t.Fatalf("new journal: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ev(typ string, data string) engine.EventData {
	return engine.EventData{Type: typ, Data: []byte(data)}
}

func mustAppend(t testing.TB, s *Store, company int64, stream string, expected int64, evs ...engine.EventData) engine.AppendResult {
	t.Helper()
	res, err := s.Append(context.Background(), company, stream, expected, evs...)
	if err != nil {
		t.Fatalf("append %s@%d: %v", stream, expected, err)
	}
	return res
}

func TestAppendAndRead(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newStore(t, d, Config{})
		before := time.Now().Add(-time.Minute)

		res := mustAppend(t, s, 7, "ticket/1", 0,
			engine.EventData{Type: "ticket.opened", Data: []byte(`{"n":1}`), Metadata: []byte(`{"user":3}`)},
			ev("ticket.accepted", `{"n":2}`),
			ev("ticket.resolved", `{"n":3}`))
		if res.Version != 3 || fmt.Sprint(res.Positions) != "[1 2 3]" || res.LastPosition() != 3 {
			t.Fatalf("append result = %+v, want version 3 at positions 1..3", res)
		}
		res = mustAppend(t, s, 8, "ticket/2", 0, ev("ticket.opened", `{"n":4}`))
		if res.Version != 1 || fmt.Sprint(res.Positions) != "[4]" {
			t.Fatalf("second stream result = %+v, want version 1 at position 4", res)
		}

		got, err := s.ReadStream(ctx, "ticket/1", 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("read %d events, want 3", len(got))
		}
		for i, e := range got {
			if e.Version != int64(i+1) || e.Position != int64(i+1) || e.StreamID != "ticket/1" || e.CompanyID != 7 {
				t.Errorf("event %d = %+v", i, e)
			}
			if string(e.Data) != fmt.Sprintf(`{"n":%d}`, i+1) {
				t.Errorf("event %d data = %s", i, e.Data)
			}
			if e.RecordedAt.Before(before) || e.RecordedAt.Location() != time.UTC {
				t.Errorf("event %d recorded at %v", i, e.RecordedAt)
			}
		}
		if got[0].Type != "ticket.opened" || string(got[0].Metadata) != `{"user":3}` || got[1].Metadata != nil {
			t.Errorf("types/metadata = %q %s / %s", got[0].Type, got[0].Metadata, got[1].Metadata)
		}

		cases := []struct {
			name        string
			from        int64
			limit       int
			wantVersion []int64
		}{
			{"from the middle", 2, 0, []int64{2, 3}},
			{"limited", 1, 2, []int64{1, 2}},
			{"past the end", 4, 0, nil},
			{"from zero reads from one", 0, 1, []int64{1}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				got, err := s.ReadStream(ctx, "ticket/1", c.from, c.limit)
				if err != nil {
					t.Fatal(err)
				}
				var vs []int64
				for _, e := range got {
					vs = append(vs, e.Version)
				}
				if fmt.Sprint(vs) != fmt.Sprint(c.wantVersion) {
					t.Errorf("versions = %v, want %v", vs, c.wantVersion)
				}
			})
		}

		if got, err := s.ReadStream(ctx, "ticket/none", 1, 0); err != nil || len(got) != 0 {
			t.Errorf("missing stream = %v, %v; want empty", got, err)
		}
		if h, err := s.Head(ctx); err != nil || h != 4 {
			t.Errorf("head = %d, %v; want 4", h, err)
		}
	})
}

func TestVersionCheck(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		s := newStore(t, d, Config{})
		mustAppend(t, s, 1, "s/existing", 0, ev("e", `1`), ev("e", `2`))

		cases := []struct {
			name       string
			stream     string
			expected   int64
			wantActual int64 // -2: success
		}{
			{"new stream must not exist, but does", "s/existing", 0, 2},
			{"stale", "s/existing", 1, 2},
			{"ahead", "s/existing", 5, 2},
			{"expected on a missing stream", "s/missing", 3, 0},
			{"right version", "s/existing", 2, -2},
			{"any version", "s/existing", engine.AnyVersion, -2},
			{"any version on a new stream", "s/new", engine.AnyVersion, -2},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before, _ := s.ReadStream(context.Background(), c.stream, 1, 0)
				res, err := s.Append(context.Background(), 1, c.stream, c.expected, ev("e", `{}`))
				if c.wantActual == -2 {
					if err != nil || res.Version != int64(len(before))+1 {
						t.Fatalf("append = %+v, %v; want version %d", res, err, len(before)+1)
					}
					return
				}
				var ce *engine.ConflictError
				if !errors.Is(err, engine.ErrConflict) || !errors.As(err, &ce) {
					t.Fatalf("err = %v, want ErrConflict", err)
				}
				if ce.Stream != c.stream || ce.Expected != c.expected || ce.Actual != c.wantActual {
					t.Errorf("conflict = %+v, want stream %s expected %d actual %d", ce, c.stream, c.expected, c.wantActual)
				}
				after, _ := s.ReadStream(context.Background(), c.stream, 1, 0)
				if len(after) != len(before) {
					t.Errorf("a refused append wrote: %d events before, %d after", len(before), len(after))
				}
			})
		}
	})
}

// Fifty appenders race for each version of one stream: exactly one wins each round,
// the others get ErrConflict, and the stream ends contiguous with the winners' events.
func TestConcurrentAppendersOneStream(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		const appenders, rounds = 50, 5
		s := newStore(t, d, Config{})
		winners := make([]int, rounds)
		for round := range rounds {
			start := make(chan struct{})
			var wg sync.WaitGroup
			var mu sync.Mutex
			wins, conflicts := []int{}, 0
			for a := range appenders {
				wg.Go(func() {
					<-start
					_, err := s.Append(context.Background(), 1, "ticket/hot", int64(round),
						ev("e", fmt.Sprintf(`{"appender":%d}`, a)))
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						wins = append(wins, a)
					case errors.Is(err, engine.ErrConflict):
						conflicts++
					default:
						t.Errorf("appender %d: %v", a, err)
					}
				})
			}
			close(start)
			wg.Wait()
			if len(wins) != 1 || conflicts != appenders-1 {
				t.Fatalf("round %d: %d winners %v and %d conflicts, want 1 and %d", round, len(wins), wins, conflicts, appenders-1)
			}
			winners[round] = wins[0]
		}
		got, err := s.ReadStream(context.Background(), "ticket/hot", 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != rounds {
			t.Fatalf("stream has %d events, want %d", len(got), rounds)
		}
		for i, e := range got {
			if e.Version != int64(i+1) || string(e.Data) != fmt.Sprintf(`{"appender":%d}`, winners[i]) {
				t.Errorf("version %d = %+v, want the event of appender %d", i+1, e, winners[i])
			}
		}
		if st := s.Stats(); st.Conflicts != rounds*(appenders-1) || st.Appends != rounds {
			t.Errorf("stats = %+v", st)
		}
	})
}

// Many concurrent appends to distinct streams share transactions.
func TestGroupCommitBatches(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		const appenders = 200
		s := newStore(t, d, Config{})
		start := make(chan struct{})
		var wg sync.WaitGroup
		for a := range appenders {
			wg.Go(func() {
				<-start
				if _, err := s.Append(context.Background(), 1, fmt.Sprintf("ticket/%d", a), 0, ev("e", `{}`)); err != nil {
					t.Errorf("append %d: %v", a, err)
				}
			})
		}
		close(start)
		wg.Wait()
		st := s.Stats()
		t.Logf("%d appends in %d transactions", st.Appends, st.Transactions)
		if st.Appends != appenders || st.Events != appenders {
			t.Fatalf("stats = %+v, want %d appends", st, appenders)
		}
		if st.Transactions >= st.Appends {
			t.Errorf("%d transactions for %d appends: no batching", st.Transactions, st.Appends)
		}
		if h, _ := s.Head(context.Background()); h != appenders {
			t.Errorf("head = %d, want %d", h, appenders)
		}
	})
}

// An append that finds the journal idle never waits for company, however long
// MaxWait is: sequential appends each commit at once.
func TestIdleAppendDoesNotLinger(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		s := newStore(t, d, Config{MaxWait: time.Hour})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for i := range 5 {
			if _, err := s.Append(ctx, 1, "s/1", int64(i), ev("e", `{}`)); err != nil {
				t.Fatalf("sequential append %d: %v", i, err)
			}
		}
		if st := s.Stats(); st.Transactions != 5 {
			t.Errorf("stats = %+v, want one transaction per sequential append", st)
		}
	})
}

func TestReadAllOrderAndTenant(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newStore(t, d, Config{})
		type want struct {
			stream  string
			company int64
		}
		var wants []want
		for i := range 30 {
			stream, company := fmt.Sprintf("ticket/%d", i%4), int64(1+i%3)
			mustAppend(t, s, company, stream, engine.AnyVersion, ev("e", fmt.Sprintf(`{"i":%d}`, i)))
			wants = append(wants, want{stream, company})
		}
		var got []engine.RecordedEvent
		after := int64(0)
		for {
			page, err := s.ReadAll(ctx, after, 7)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			if len(page) > 7 {
				t.Fatalf("page of %d events, limit 7", len(page))
			}
			got = append(got, page...)
			after = page[len(page)-1].Position
		}
		if len(got) != len(wants) {
			t.Fatalf("read %d events, want %d", len(got), len(wants))
		}
		versions := map[string]int64{}
		for i, e := range got {
			versions[e.StreamID]++
			if e.Position != int64(i+1) || e.StreamID != wants[i].stream || e.CompanyID != wants[i].company ||
				e.Version != versions[e.StreamID] || string(e.Data) != fmt.Sprintf(`{"i":%d}`, i) {
				t.Errorf("event %d = %+v, want %+v", i, e, wants[i])
			}
		}
		if page, err := s.ReadAll(ctx, 25, 0); err != nil || len(page) != 5 || page[0].Position != 26 {
			t.Errorf("read after 25 = %d events, %v", len(page), err)
		}
	})
}

func TestSnapshots(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newStore(t, d, Config{MaxSnapshotSize: 1000})
		for range 5 {
			mustAppend(t, s, 1, "ticket/9", engine.AnyVersion, ev("e", `{}`))
		}
		if _, ok, err := s.LoadSnapshot(ctx, "ticket/9"); ok || err != nil {
			t.Fatalf("snapshot before any saved: ok=%v err=%v", ok, err)
		}
		steps := []struct {
			name        string
			snap        engine.Snapshot
			wantErr     error
			wantVersion int64
		}{
			{"first", engine.Snapshot{StreamID: "ticket/9", Version: 2, Type: "ticket.v1", Data: []byte("two")}, nil, 2},
			{"newer replaces", engine.Snapshot{StreamID: "ticket/9", Version: 4, Type: "ticket.v1", Data: []byte("four")}, nil, 4},
			{"older is ignored", engine.Snapshot{StreamID: "ticket/9", Version: 3, Type: "ticket.v1", Data: []byte("three")}, nil, 4},
			{"same version replaces", engine.Snapshot{StreamID: "ticket/9", Version: 4, Type: "ticket.v2", Data: []byte{0, 1, 2}}, nil, 4},
			{"beyond the stream", engine.Snapshot{StreamID: "ticket/9", Version: 6, Type: "ticket.v1", Data: []byte("x")}, engine.ErrInvalidEvent, 4},
			{"missing stream", engine.Snapshot{StreamID: "ticket/none", Version: 1, Type: "ticket.v1", Data: []byte("x")}, engine.ErrInvalidEvent, 4},
			{"too large", engine.Snapshot{StreamID: "ticket/9", Version: 5, Type: "ticket.v1", Data: make([]byte, 1001)}, engine.ErrEventTooLarge, 4},
			{"no type", engine.Snapshot{StreamID: "ticket/9", Version: 5, Data: []byte("x")}, engine.ErrInvalidEvent, 4},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				err := s.SaveSnapshot(ctx, st.snap)
				if !errors.Is(err, st.wantErr) || (st.wantErr == nil && err != nil) {
					t.Fatalf("save = %v, want %v", err, st.wantErr)
				}
				got, ok, err := s.LoadSnapshot(ctx, "ticket/9")
				if err != nil || !ok || got.Version != st.wantVersion || got.StreamID != "ticket/9" || got.RecordedAt.IsZero() {
					t.Errorf("load = %+v ok=%v err=%v, want version %d", got, ok, err, st.wantVersion)
				}
			})
		}
		got, _, _ := s.LoadSnapshot(ctx, "ticket/9")
		if got.Type != "ticket.v2" || string(got.Data) != "\x00\x01\x02" {
			t.Errorf("latest snapshot = %q %q", got.Type, got.Data)
		}
	})
}

func TestHostileInput(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		s := newStore(t, d, Config{MaxEventSize: 64 << 10})
		big := `"` + strings.Repeat("a", 64<<10) + `"`
		cases := []struct {
			name     string
			company  int64
			stream   string
			expected int64
			events   []engine.EventData
			want     error
			wantText string
		}{
			{"empty stream id", 1, "", 0, []engine.EventData{ev("e", `{}`)}, engine.ErrInvalidEvent, "empty stream id"},
			{"NUL in stream id", 1, "ticket/\x001", 0, []engine.EventData{ev("e", `{}`)}, engine.ErrInvalidEvent, "control character"},
			{"invalid UTF-8 stream id", 1, "ticket/\xff", 0, []engine.EventData{ev("e", `{}`)}, engine.ErrInvalidEvent, "UTF-8"},
			{"long stream id", 1, strings.Repeat("s", 256), 0, []engine.EventData{ev("e", `{}`)}, engine.ErrInvalidEvent, "above 255"},
			{"no events", 1, "s/1", 0, nil, engine.ErrInvalidEvent, "no events"},
			{"empty type", 1, "s/1", 0, []engine.EventData{ev("", `{}`)}, engine.ErrInvalidEvent, "empty event type"},
			{"invalid JSON", 1, "s/1", 0, []engine.EventData{ev("e", `{"a":`)}, engine.ErrInvalidEvent, "not valid UTF-8 JSON"},
			{"empty data", 1, "s/1", 0, []engine.EventData{ev("e", ``)}, engine.ErrInvalidEvent, "not valid UTF-8 JSON"},
			{"invalid UTF-8 in JSON", 1, "s/1", 0, []engine.EventData{ev("e", "\"\xff\"")}, engine.ErrInvalidEvent, "not valid UTF-8 JSON"},
			{"invalid metadata", 1, "s/1", 0, []engine.EventData{{Type: "e", Data: []byte(`{}`), Metadata: []byte(`nope`)}}, engine.ErrInvalidEvent, "metadata"},
			{"huge payload", 1, "s/1", 0, []engine.EventData{ev("e", big)}, engine.ErrEventTooLarge, "above the 65536-byte limit"},
			{"huge second event", 1, "s/1", 0, []engine.EventData{ev("e", `{}`), ev("e", big)}, engine.ErrEventTooLarge, "event 1"},
			{"negative company", -1, "s/1", 0, []engine.EventData{ev("e", `{}`)}, engine.ErrInvalidEvent, "negative company"},
			{"expected below AnyVersion", 1, "s/1", -2, []engine.EventData{ev("e", `{}`)}, engine.ErrInvalidEvent, "expected version"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, err := s.Append(context.Background(), c.company, c.stream, c.expected, c.events...)
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.wantText) {
					t.Fatalf("err = %v, want %v mentioning %q", err, c.want, c.wantText)
				}
			})
		}
		t.Run("default limit is 1 MiB", func(t *testing.T) {
			def := newStore(t, d, Config{})
			huge := `"` + strings.Repeat("x", DefaultMaxEventSize) + `"`
			_, err := def.Append(context.Background(), 1, "s/1", 0, ev("e", huge))
			if !errors.Is(err, engine.ErrEventTooLarge) || !strings.Contains(err.Error(), "1048576-byte limit") {
				t.Fatalf("err = %v, want ErrEventTooLarge at the 1048576-byte limit", err)
			}
		})
		// JSON that encoding/json and PostgreSQL's json type both accept, stored as is.
		odd := `{"nul":"\u0000","surrogate":"\ud800","big":1e999}`
		mustAppend(t, s, 1, "s/odd", 0, ev("e", odd))
		got, _ := s.ReadStream(context.Background(), "s/odd", 1, 0)
		if len(got) != 1 || string(got[0].Data) != odd {
			t.Errorf("odd JSON read back as %+v", got)
		}
		if h, _ := s.Head(context.Background()); h != 1 {
			t.Errorf("head = %d: a refused append was written", h)
		}
	})
}

// If the database refuses a batch (here a duplicate (stream, version) row slipped in
// for one stream), the batch is retried one append per transaction: the offender gets
// ErrConflict and the others commit.
func TestUniqueViolationRetriesWithoutOffender(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		const appenders = 40
		s := newStore(t, d, Config{MaxWait: 20 * time.Millisecond})
		// A first append holds the committer until the others are queued, so that the
		// poisoned one is in a batch with others (alone, it is simply a conflict).
		warm, release := make(chan struct{}), make(chan struct{})
		s.hookRows = func(rows []row) []row {
			for _, r := range rows {
				if r.stream == "ticket/warmup" {
					close(warm)
					<-release
				}
				if r.stream == "ticket/poison" {
					dup := r
					dup.position += 1 << 40
					return append(rows, dup)
				}
			}
			return rows
		}
		var wg sync.WaitGroup
		var warmErr error
		wg.Go(func() { _, warmErr = s.Append(context.Background(), 1, "ticket/warmup", 0, ev("e", `{}`)) })
		<-warm
		errs := make([]error, appenders)
		for a := range appenders {
			wg.Go(func() {
				stream := fmt.Sprintf("ticket/%d", a)
				if a == appenders/2 {
					stream = "ticket/poison"
				}
				_, errs[a] = s.Append(context.Background(), 1, stream, 0, ev("e", `{}`))
			})
		}
		time.Sleep(200 * time.Millisecond) // the appenders queue behind the held batch
		close(release)
		wg.Wait()
		if warmErr != nil {
			t.Fatalf("warm-up append: %v", warmErr)
		}
		for a, err := range errs {
			if a == appenders/2 {
				var ce *engine.ConflictError
				if !errors.As(err, &ce) || ce.Actual != 0 {
					t.Errorf("poison append: %v, want ErrConflict at actual 0", err)
				}
			} else if err != nil {
				t.Errorf("append %d failed with the offender: %v", a, err)
			}
		}
		// SQLite numbers positions under its write lock: gapless. PostgreSQL takes them
		// from a sequence, so the refused batch left a hole; either way the journal
		// holds exactly the warm-up and the others, in increasing positions.
		// On PostgreSQL a read returns what is proven final, which a transaction open
		// anywhere on the server (another test's, in another database) can hold back
		// for a moment: read until the acknowledged appends are all there.
		all, err := readUntil(s, appenders, 30*time.Second)
		if err != nil || len(all) != appenders {
			t.Fatalf("journal holds %d events (%v), want %d: the warm-up and the others, offender absent", len(all), err, appenders)
		}
		for i, e := range all {
			if e.StreamID == "ticket/poison" || (i > 0 && e.Position <= all[i-1].Position) {
				t.Errorf("event %d = %s at %d", i, e.StreamID, e.Position)
			}
		}
		if h, _ := s.Head(context.Background()); d.Dialect == db.SQLite && h != appenders {
			t.Errorf("head = %d, want %d (gapless on SQLite)", h, appenders)
		}
		if st := s.Stats(); st.Retries == 0 {
			t.Errorf("stats = %+v: the fallback never ran", st)
		}
	})
}

// Acknowledged appends survive a process that never calls Close: a fresh instance on
// the same database URL reads them all.
func TestAcknowledgedAppendsSurviveWithoutClose(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ctx := context.Background()
			url := dbtest.URL(t, dialect)
			d1, err := db.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d1.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			s1, err := New(d1, Config{})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			acked := make([]engine.AppendResult, 20)
			for i := range acked {
				wg.Go(func() {
					acked[i], _ = s1.Append(ctx, 1, fmt.Sprintf("ticket/%d", i), 0, ev("e", fmt.Sprintf(`{"i":%d}`, i)))
				})
			}
			wg.Wait()
			// No Close, no database Close: the "crashed" instance is abandoned as is
			// until the test ends.
			t.Cleanup(func() { s1.Close(); d1.Close() })

			d2, err := db.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d2.Close() })
			s2 := newStore(t, d2, Config{})
			for i, res := range acked {
				if res.Version != 1 {
					t.Fatalf("append %d was not acknowledged: %+v", i, res)
				}
				got, err := s2.ReadStream(ctx, fmt.Sprintf("ticket/%d", i), 1, 0)
				if err != nil || len(got) != 1 || got[0].Position != res.Positions[0] || string(got[0].Data) != fmt.Sprintf(`{"i":%d}`, i) {
					t.Errorf("reopened stream %d = %+v, %v", i, got, err)
				}
			}
			// The new instance continues the journal where the old one left it.
			res := mustAppend(t, s2, 1, "ticket/0", 1, ev("e", `{}`))
			if res.Version != 2 || res.Positions[0] != 21 {
				t.Errorf("append after reopen = %+v, want version 2 at position 21", res)
			}
		})
	}
}

func TestNotifyAndClose(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		s, err := New(d, Config{})
		if err != nil {
			t.Fatal(err)
		}
		ch := s.Notify()
		select {
		case <-ch:
			// On PostgreSQL the listener signals once when it connects; take a fresh one.
			ch = s.Notify()
		default:
		}
		mustAppend(t, s, 1, "s/1", 0, ev("e", `{}`))
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatal("Notify channel not closed after a commit")
		}

		// Close commits what is queued and then refuses.
		var wg sync.WaitGroup
		results := make([]error, 30)
		for i := range results {
			wg.Go(func() {
				_, results[i] = s.Append(context.Background(), 1, fmt.Sprintf("c/%d", i), 0, ev("e", `{}`))
			})
		}
		wg.Wait()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		for i, err := range results {
			if err != nil {
				t.Errorf("append %d before Close: %v", i, err)
			}
		}
		if _, err := s.Append(context.Background(), 1, "s/2", 0, ev("e", `{}`)); !errors.Is(err, ErrClosed) {
			t.Errorf("append after Close = %v, want ErrClosed", err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
}

func TestConfigRejectsNegativeSizes(t *testing.T) {
	d := dbtest.Open(t, db.SQLite)
	if _, err := New(d, Config{MaxEventSize: -1}); err == nil {
		t.Fatal("New accepted a negative MaxBatch")
	}
}

// TestReadCompany: one tenant's events, in position order, paged, and nobody else's.
func TestReadCompany(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newStore(t, d, Config{})
		var want []int64 // positions of tenant 2's events
		for i := range 30 {
			company := int64(1 + i%3)
			res := mustAppend(t, s, company, fmt.Sprintf("ticket/%d", i%5), engine.AnyVersion, ev("e", fmt.Sprintf(`{"i":%d}`, i)))
			if company == 2 {
				want = append(want, res.LastPosition())
			}
		}
		var got []int64
		after := int64(0)
		for {
			page, err := s.ReadCompany(ctx, 2, after, 4)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			if len(page) > 4 {
				t.Fatalf("page of %d events, limit 4", len(page))
			}
			for _, e := range page {
				if e.CompanyID != 2 {
					t.Errorf("event of tenant %d read for tenant 2", e.CompanyID)
				}
				got = append(got, e.Position)
			}
			after = page[len(page)-1].Position
		}
		if !slices.Equal(got, want) {
			t.Errorf("tenant 2's positions %v, want %v", got, want)
		}
		if page, err := s.ReadCompany(ctx, 9, 0, 0); err != nil || len(page) != 0 {
			t.Errorf("unknown tenant: %d events, %v", len(page), err)
		}
	})
}

// readUntil reads the whole journal of s until it holds at least n events or wait has
// passed, and answers the last read.
func readUntil(s *Store, n int, wait time.Duration) ([]engine.RecordedEvent, error) {
	deadline := time.Now().Add(wait)
	for {
		all, err := s.ReadAll(context.Background(), 0, 0)
		if err != nil || len(all) >= n || time.Now().After(deadline) {
			return all, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}
