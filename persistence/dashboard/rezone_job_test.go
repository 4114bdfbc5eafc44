package dashboard

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/jobs"
	"atende/persistence/jobs/jobstest"
	"atende/persistence/schedule"
)

// flakySource fails its first read, as a database hiccup would, and counts reads.
type flakySource struct {
	Source
	reads atomic.Int32
}

func (f *flakySource) ReadCompany(ctx context.Context, companyID engine.ID, after int64, limit int) ([]engine.RecordedEvent, error) {
	if f.reads.Add(1) == 1 {
		return nil, errors.New("connection reset (test)")
	}
	return f.Source.ReadCompany(ctx, companyID, after, limit)
}

// TestRezoneJobOnceAcrossNodes: after tenant 2's zone changes, two nodes (each with
// its River client working the rezone jobs) both ask for the rebuild: one job is
// inserted, its first attempt fails, River retries it, and afterwards tenant 2's
// counters equal a recount in the new zone and tenant 1's are untouched.
func TestRezoneJobOnceAcrossNodes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		if err := schedule.Migrate(ctx, d); err != nil {
			t.Fatal(err)
		}
		cuiaba, tokyo := mustZone(t, DefaultZone), mustZone(t, "Asia/Tokyo")
		c := newCluster(t, d, cuiaba, cuiaba, 16, 30, 30)
		src := &flakySource{Source: c.j}
		var nodes [2]*jobs.Client
		for i := range nodes {
			worker := &RezoneWorker{Projection: c.nodes[i], DB: d, Source: src}
			nodes[i] = jobstest.Start(t, d, jobs.Config{Kinds: []jobs.Kinds{worker.Kinds()}})
		}

		c.zones.set(2, tokyo)
		if need, err := c.nodes[0].NeedsRezone(ctx, d, 2); err != nil || !need {
			t.Fatalf("NeedsRezone after the change: %v, %v", need, err)
		}
		var inserted int
		for _, s := range nodes {
			res, err := s.Insert(ctx, RezoneArgs{CompanyID: 2, Zone: "Asia/Tokyo"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.UniqueSkippedAsDuplicate {
				inserted++
			}
		}
		if inserted != 1 {
			t.Errorf("%d jobs inserted by two nodes, want 1", inserted)
		}

		// The job completes on its second attempt.
		deadline := time.Now().Add(2 * time.Minute)
		for {
			var state string
			var attempt, n int
			err := d.SQL.QueryRow(`SELECT MIN(state), MIN(attempt), COUNT(*) FROM river_job WHERE kind = 'dashboard.rezone'`).Scan(&state, &attempt, &n)
			if err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Fatalf("%d rezone jobs, want 1", n)
			}
			if state == "completed" {
				if attempt != 2 {
					t.Errorf("completed at attempt %d, want 2 (the first failed)", attempt)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("rezone job %s after %d attempts", state, attempt)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if need, err := c.nodes[1].NeedsRezone(ctx, d, 2); err != nil || need {
			t.Errorf("NeedsRezone after the job: %v, %v", need, err)
		}
		want, _ := recount(t, c.j, c.zones.snapshot())
		diff(t, storedBuckets(t, d), want)

		// A completed job does not stop the same zone being asked for again later.
		c.zones.set(2, cuiaba)
		if res, err := nodes[0].Insert(ctx, RezoneArgs{CompanyID: 2, Zone: DefaultZone}, nil); err != nil || res.UniqueSkippedAsDuplicate {
			t.Fatalf("insert back to Cuiabá: %v", err)
		}
		c.zones.set(2, tokyo)
		if res, err := nodes[1].Insert(ctx, RezoneArgs{CompanyID: 2, Zone: "Asia/Tokyo"}, nil); err != nil || res.UniqueSkippedAsDuplicate {
			t.Fatalf("insert Tokyo again after the first completed: %v", err)
		}
		for deadline := time.Now().Add(2 * time.Minute); ; {
			var n int
			if err := d.SQL.QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = 'dashboard.rezone' AND state <> 'completed'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d rezone jobs not completed", n)
			}
			time.Sleep(100 * time.Millisecond)
		}
		want, _ = recount(t, c.j, c.zones.snapshot())
		diff(t, storedBuckets(t, d), want)
	})
}
