package jobkind_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/jobkind"
	"atende/persistence/schedule"
)

// otherArgs is a job kind another River client of the node works.
type otherArgs struct{}

func (otherArgs) Kind() string { return "test.other" }

var other = jobkind.Kind{Name: "test.other", Timeout: time.Minute}

// stuckJob inserts a job of otherArgs that a node claimed ten minutes ago and never
// finished (it died).
func stuckJob(t *testing.T, d *db.DB) {
	t.Helper()
	ctx := context.Background()
	cfg := &river.Config{SkipUnknownJobCheck: true}
	var err error
	switch d.Dialect {
	case db.Postgres:
		cp, e := river.NewClient(riverpgxv5.New(d.Pool), cfg)
		if e != nil {
			t.Fatal(e)
		}
		_, err = cp.Insert(ctx, otherArgs{}, &river.InsertOpts{Queue: "other"})
	default:
		cs, e := river.NewClient(riversqlite.New(d.SQL), cfg)
		if e != nil {
			t.Fatal(e)
		}
		_, err = cs.Insert(ctx, otherArgs{}, &river.InsertOpts{Queue: "other"})
	}
	if err != nil {
		t.Fatal(err)
	}
	ago := `now() - interval '10 minutes'`
	if d.Dialect == db.SQLite {
		ago = `datetime('now', '-10 minutes', 'subsec')`
	}
	dbtest.MustExec(t, d, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = `+ago+` WHERE kind = 'test.other'`)
}

// rescued starts a node's schedule client (the only client, so it leads River's
// maintenance) holding the stand-ins of foreign, and returns the state the stuck
// job of otherArgs reaches once the rescuer ran.
func rescued(t *testing.T, d *db.DB, foreign []jobkind.Kind) string {
	t.Helper()
	ctx := context.Background()
	sc, err := schedule.New(d, schedule.Config{IDs: db.NewIDs(d, 16), Timers: schedule.TimersConfig{
		PollInterval: 50 * time.Millisecond, RescueAfter: time.Second, Foreign: foreign}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = sc.Stop(ctx)
	}()
	// A bound against a hang: the leader election and the rescuer's first run.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var state string
		if err := d.SQL.QueryRow(`SELECT state FROM river_job WHERE kind = 'test.other'`).Scan(&state); err != nil {
			t.Fatal(err)
		}
		if state != "running" {
			return state
		}
		if time.Now().After(deadline) {
			t.Fatal("the stuck job was never rescued")
		}
	}
}

// A stuck job of a kind another client works is retried on its own queue by the
// leading client that holds its stand-in; without the stand-in, River discards it.
func TestStandInKeepsAForeignStuckJob(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		if err := schedule.Migrate(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		stuckJob(t, d)
		if state := rescued(t, d, []jobkind.Kind{other, schedule.FireKind}); state != "retryable" && state != "available" {
			t.Fatalf("with its stand-in the stuck job is %s, want retryable or available", state)
		}
		var queue string
		if err := d.SQL.QueryRow(`SELECT queue FROM river_job WHERE kind = 'test.other'`).Scan(&queue); err != nil || queue != "other" {
			t.Fatalf("queue %q, %v", queue, err)
		}

		dbtest.MustExec(t, d, `DELETE FROM river_job`)
		dbtest.MustExec(t, d, `DELETE FROM river_leader`)
		stuckJob(t, d)
		if state := rescued(t, d, nil); state != "discarded" {
			t.Fatalf("without a stand-in the stuck job is %s; River's documented behaviour is to discard it", state)
		}
	})
}

// A stand-in needs a name and a positive timeout, and a client's own kinds are not
// stood in for.
func TestAddStandIns(t *testing.T) {
	w := river.NewWorkers()
	if err := jobkind.AddStandIns(w, []jobkind.Kind{{Name: "x"}}); err == nil {
		t.Error("a kind without a timeout was accepted")
	}
	if err := jobkind.AddStandIns(w, []jobkind.Kind{{Timeout: time.Second}}); err == nil {
		t.Error("a kind without a name was accepted")
	}
	if err := jobkind.AddStandIns(w, []jobkind.Kind{other, other}); err == nil {
		t.Error("a kind registered twice was accepted")
	}
	w = river.NewWorkers()
	river.AddWorker(w, river.WorkFunc(func(context.Context, *river.Job[otherArgs]) error { return nil }))
	if err := jobkind.AddStandIns(w, []jobkind.Kind{other}, other.Name); err != nil {
		t.Errorf("the client's own kind: %v", err)
	}
}
