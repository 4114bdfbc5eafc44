package flow_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/flow"
	"atende/persistence/jobs"
	"atende/persistence/jobs/jobstest"
	"atende/persistence/schedule"
)

const doc = `{"nodes":[{"id":"s","type":"start","position":{"x":1,"y":2}},{"id":"e","type":"end","data":{"text":"tchau"}}],
"edges":[{"id":"x","source":"s","sourceHandle":"out","target":"e"}],"viewport":{"zoom":1}}`

func TestFlowStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'A'), (2, 'B')`)
		s := flow.NewStore(d, nil)

		f, err := s.Create(ctx, 1, engine.FlowInput{Name: " Vendas ", IsActive: true, DataJSON: json.RawMessage(doc),
			ConnectionIDs: []engine.ID{5}, QueueIDs: []engine.ID{8, 7}})
		if err != nil || f.Name != "Vendas" || string(f.DataJSON) != doc || len(f.QueueIDs) != 2 || f.QueueIDs[0] != 7 {
			t.Fatalf("create = %+v, %v", f, err)
		}
		t.Run("the document comes back as sent", func(t *testing.T) {
			got, err := s.Get(ctx, 1, f.ID)
			if err != nil || string(got.DataJSON) != doc || got.ConnectionIDs[0] != 5 || !got.IsActive {
				t.Fatalf("get = %+v, %v", got, err)
			}
		})
		t.Run("tenant isolation", func(t *testing.T) {
			if _, err := s.Get(ctx, 2, f.ID); engine.CodeOf(err) != engine.ErrNoFlowFound {
				t.Fatalf("other tenant read: %v", err)
			}
			if _, err := s.Update(ctx, 2, f.ID, engine.FlowInput{Name: "x2", DataJSON: json.RawMessage(doc)}); engine.CodeOf(err) != engine.ErrNoFlowFound {
				t.Fatalf("other tenant update: %v", err)
			}
			if err := s.Delete(ctx, 2, f.ID); engine.CodeOf(err) != engine.ErrNoFlowFound {
				t.Fatalf("other tenant delete: %v", err)
			}
			if l, _ := s.List(ctx, 2); len(l) != 0 {
				t.Fatalf("other tenant lists %v", l)
			}
		})
		t.Run("one flow per connection", func(t *testing.T) {
			_, err := s.Create(ctx, 1, engine.FlowInput{Name: "Outro", DataJSON: json.RawMessage(doc), ConnectionIDs: []engine.ID{5}})
			if e, ok := err.(*engine.Error); !ok || e.Fields["connectionIds"] != engine.MsgAlreadyExists {
				t.Fatalf("err = %v", err)
			}
			if l, _ := s.List(ctx, 1); len(l) != 1 {
				t.Fatalf("a refused create left a row: %v", l)
			}
		})
		t.Run("invalid document refused", func(t *testing.T) {
			_, err := s.Update(ctx, 1, f.ID, engine.FlowInput{Name: "Vendas", DataJSON: json.RawMessage(`{"nodes":[{"id":"s","type":"start"}]}`)})
			if engine.CodeOf(err) != engine.ErrFlowInvalid {
				t.Fatalf("err = %v", err)
			}
		})
		t.Run("start for connection, then queue, only active", func(t *testing.T) {
			got, ok, err := s.StartFor(ctx, 1, 5, 0)
			if err != nil || !ok || got.ID != f.ID {
				t.Fatalf("StartFor = %v %v %v", got.ID, ok, err)
			}
			if _, ok, _ := s.StartFor(ctx, 1, 6, 7); !ok {
				t.Fatal("queue 7 has no flow")
			}
			if _, ok, _ := s.StartFor(ctx, 2, 5, 7); ok {
				t.Fatal("another tenant's connection 5 starts the flow")
			}
			if has, _ := s.HasStarts(ctx, 1, 6); !has {
				t.Fatal("queue flows do not count")
			}
			if _, err := s.Update(ctx, 1, f.ID, engine.FlowInput{Name: "Vendas", DataJSON: json.RawMessage(doc), ConnectionIDs: []engine.ID{5}}); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := s.StartFor(ctx, 1, 5, 0); ok {
				t.Fatal("an inactive flow starts")
			}
			if has, _ := s.HasStarts(ctx, 1, 5); has {
				t.Fatal("an inactive flow counts")
			}
		})
		t.Run("delete", func(t *testing.T) {
			if err := s.Delete(ctx, 1, f.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, 1, f.ID); engine.CodeOf(err) != engine.ErrNoFlowFound {
				t.Fatalf("deleted flow read: %v", err)
			}
		})
		t.Run("runs", func(t *testing.T) {
			runs := flow.NewRuns(s)
			if err := runs.Put(ctx, 1, 40, 3, engine.FlowRunning); err != nil {
				t.Fatal(err)
			}
			if err := runs.Put(ctx, 1, 41, 3, engine.FlowWaiting); err != nil {
				t.Fatal(err)
			}
			refs, err := runs.Stalled(ctx, 0, 10)
			if err != nil || len(refs) != 1 || refs[0].TicketID != 40 {
				t.Fatalf("stalled = %v, %v", refs, err)
			}
			if refs, _ := runs.Stalled(ctx, time.Hour, 10); len(refs) != 0 {
				t.Fatalf("a fresh run is stalled: %v", refs)
			}
			_ = runs.Remove(ctx, 40)
			if refs, _ := runs.Stalled(ctx, 0, 10); len(refs) != 0 {
				t.Fatalf("a removed run is stalled: %v", refs)
			}
		})
	})
}

type waker struct {
	mu       sync.Mutex
	timeouts []int64
	woken    []engine.ID
}

func (w *waker) Timeout(_ context.Context, _, ticket engine.ID, seq int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timeouts = append(w.timeouts, ticket*100+seq)
	return nil
}

func (w *waker) Wake(_ context.Context, _, ticket engine.ID) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.woken = append(w.woken, ticket)
	return nil
}

func (w *waker) snapshot() ([]int64, []engine.ID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]int64(nil), w.timeouts...), append([]engine.ID(nil), w.woken...)
}

func TestFlowTimers(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		if err := schedule.Migrate(ctx, d); err != nil {
			t.Fatal(err)
		}
		s := flow.NewStore(d, nil)
		runs := flow.NewRuns(s)
		if err := runs.Put(ctx, 1, 77, 3, engine.FlowRunning); err != nil {
			t.Fatal(err)
		}
		w := &waker{}
		tm, err := flow.NewTimers(d, runs, w, flow.TimersConfig{StalledAfter: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		// The same wait inserted twice (a restart between the insert and the append)
		// fires once.
		at := time.Now().Add(200 * time.Millisecond)
		for range 2 {
			if err := tm.ScheduleTimeout(ctx, 1, 9, 2, at); err != nil {
				t.Fatal(err)
			}
		}
		jobstest.Start(t, d, jobs.Config{Kinds: []jobs.Kinds{tm.Kinds()}})
		deadline := time.Now().Add(30 * time.Second)
		for {
			timeouts, woken := w.snapshot()
			if len(timeouts) >= 1 && len(woken) >= 1 {
				if timeouts[0] != 902 || woken[0] != 77 {
					t.Fatalf("timeouts %v woken %v", timeouts, woken)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("timeouts %v woken %v after 30 s", timeouts, woken)
			}
			time.Sleep(50 * time.Millisecond)
		}
		// Give a duplicate the time to fire, then check it did not.
		time.Sleep(500 * time.Millisecond)
		if timeouts, _ := w.snapshot(); len(timeouts) != 1 {
			t.Fatalf("the timeout fired %d times", len(timeouts))
		}
	})
}
