package jobs_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/campaign"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/jobs"
	"atende/persistence/jobs/jobstest"
	"atende/persistence/schedule"
	"atende/persistence/store"
)

// recorder stands for the ticket actor (schedule fires) and the connection actor
// (campaign sends): it counts each message id it is handed.
type recorder struct {
	mu    sync.Mutex
	count map[engine.ID]int
}

func (r *recorder) add(id engine.ID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count[id]++
}

func (r *recorder) times(id engine.ID) int { r.mu.Lock(); defer r.mu.Unlock(); return r.count[id] }

// snapshot is the counts so far, and starts counting afresh.
func (r *recorder) snapshot() map[engine.ID]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.count
	r.count = map[engine.ID]int{}
	return got
}

func (r *recorder) DeliverScheduled(_ context.Context, d engine.ScheduledDelivery) (engine.ID, error) {
	r.add(d.MessageID)
	return 1, nil
}

func (r *recorder) SendCampaign(_ context.Context, _ engine.ID, m engine.CampaignOutbound) (string, error) {
	r.add(m.MessageID)
	return fmt.Sprintf("p%d", m.MessageID), nil
}

// TestDeadNodesJobsAreRescuedWhicheverNodeLeads: a node died while working a
// schedule's fire and a campaign's run; both jobs stay "running" in river_job,
// claimed by it ten minutes ago. Two live nodes, each with one River client working
// every kind (as cmd/atende builds it), start with one or the other leading River's
// maintenance: the leader's rescuer hands each job back once, it is worked again and
// completes, the schedule is sent once and every campaign send goes out once.
//
// The control is the arrangement this replaced, one client per package on the same
// table: when the campaigns' client leads, its rescuer has no worker for
// schedule.fire and discards the fire, and the schedule stays pending. It shows the
// set-up reaches River's rescuer, so the passing cases are not passing by accident.
func TestDeadNodesJobsAreRescuedWhicheverNodeLeads(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		seed(t, d)
		rec := &recorder{count: map[engine.ID]int{}}
		sched, err := schedule.New(d, schedule.Config{IDs: db.NewIDs(d, 16), Contacts: store.NewContacts(d, nil), Sender: rec})
		if err != nil {
			t.Fatal(err)
		}
		camps, err := campaign.New(d, campaign.Config{Contacts: store.NewContacts(d, nil), Connections: connection.New(d, nil),
			Sender: rec, Interval: -1})
		if err != nil {
			t.Fatal(err)
		}
		every := []jobs.Kinds{sched.Kinds(), camps.Kinds()}
		for _, leader := range []string{"node-a", "node-b"} {
			t.Run(leader+" leads", func(t *testing.T) {
				sc, c := deadNodesJobs(t, d, sched, camps)
				startLeaderFirst(t, d, leader, map[string][]jobs.Kinds{"node-a": every, "node-b": every})
				waitFor(t, "the schedule sent, the campaign finished and both jobs completed", func() bool {
					s, err1 := sched.Get(ctx, 1, sc.ID)
					got, err2 := camps.Get(ctx, 1, c.ID)
					fire, _ := jobOf(t, d, "schedule.fire")
					run, _ := jobOf(t, d, "campaign.run")
					return err1 == nil && err2 == nil && s.Status == engine.ScheduleSent && got.Status == engine.CampaignFinished &&
						fire == "completed" && run == "completed"
				})
				// The schedule's message and the campaign's three, each once.
				got := rec.snapshot()
				if got[sc.MessageID] != 1 || len(got) != 4 {
					t.Errorf("handed over %v, want the schedule's message %d and three sends, each once", got, sc.MessageID)
				}
				for id, n := range got {
					if n != 1 {
						t.Errorf("message %d handed over %d times", id, n)
					}
				}
				sends, err := camps.Sends(ctx, 1, c.ID, "", 0, 10)
				if err != nil || len(sends) != 3 {
					t.Fatalf("sends %v, %v", sends, err)
				}
				for _, s := range sends {
					if s.Status != "sent" {
						t.Errorf("send %+v", s)
					}
				}
				// Each job was rescued once. Its next attempt normally completes it
				// (attempt 2); one that failed under load (a busy database) is
				// retried by River as any failed job is, and says why.
				for _, kind := range []string{"schedule.fire", "campaign.run"} {
					_, attempt := jobOf(t, d, kind)
					errs := jobErrors(t, d, kind)
					if n := strings.Count(errs, "Stuck job rescued"); n != 1 || attempt < 2 {
						t.Errorf("%s job rescued %d times, %d attempts: %s", kind, n, attempt, errs)
					}
					if attempt > 2 {
						t.Logf("%s job completed after %d attempts: %s", kind, attempt, errs)
					}
				}
			})
		}
		t.Run("control: a client per package, the campaigns' leads", func(t *testing.T) {
			sc, _ := deadNodesJobs(t, d, sched, camps)
			startLeaderFirst(t, d, "campaigns", map[string][]jobs.Kinds{
				"campaigns": {camps.Kinds()}, "schedules": {sched.Kinds()}})
			waitFor(t, "the fire discarded", func() bool { state, _ := jobOf(t, d, "schedule.fire"); return state == "discarded" })
			if s, err := sched.Get(ctx, 1, sc.ID); err != nil || s.Status != engine.SchedulePending || rec.times(sc.MessageID) != 0 {
				t.Fatalf("schedule %+v, %v, handed over %d times", s, err, rec.times(sc.MessageID))
			}
		})
	})
}

// seed inserts tenant 1, its user 10, its default WhatsApp connection 1 and contacts
// 1000–1002, and River's tables.
func seed(t *testing.T, d *db.DB) {
	t.Helper()
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'Empresa A')`)
	dbtest.MustExec(t, d, `INSERT INTO users (id, company_id, name, name_key, search, email, password_hash, profile,
		created_at, updated_at) VALUES (10, 1, 'Ana', 'ana', 'ana', 'ana@a.test', 'x', 'user', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')`)
	dbtest.MustExec(t, d, `INSERT INTO connections (id, company_id, name, channel, status, is_default, daily_max, token, created_at, updated_at)
		VALUES (1, 1, 'Vendas', 'whatsapp', 'CONNECTED', TRUE, 0, 't1', 0, 0)`)
	const at = "2026-11-22T10:00:00Z"
	for i := range 3 {
		dbtest.MustExec(t, d, fmt.Sprintf(`INSERT INTO contacts (id, company_id, name, name_norm, number, search, created_at, updated_at)
			VALUES (%d, 1, 'Cliente %d', 'cliente %d', '55659%08d', 'cliente', '%s', '%s')`, 1000+i, i, i, i, at, at))
	}
	if err := schedule.Migrate(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

// deadNodesJobs creates a schedule and a campaign of three contacts, and leaves
// their jobs as a node that died mid-work leaves them: running, first attempt,
// claimed ten minutes ago (past both jobs' timeouts and the rescue delay). Jobs of an
// earlier case are removed first, so each kind has one job.
func deadNodesJobs(t *testing.T, d *db.DB, sched *schedule.Scheduler, camps *campaign.Store) (engine.Schedule, engine.Campaign) {
	t.Helper()
	ctx := context.Background()
	dbtest.MustExec(t, d, `DELETE FROM river_job`)
	sc, err := sched.Create(ctx, 1, engine.ScheduleInput{Kind: engine.ScheduleMessage, PhoneNumber: "5565999990001",
		Message: "{{ms}}", UserID: 10, SendAt: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := camps.Create(ctx, 1, 10, engine.CampaignInput{Kind: engine.KindCampaign, Name: "Resgate",
		ContactIDs: []engine.ID{1000, 1001, 1002}, NameFilter: "%", ChannelFilter: "%", SendFrom: []engine.ID{1},
		StartAt: time.Now(), Messages: []engine.CampaignMessage{{Body: "oi"}}})
	if err != nil {
		t.Fatal(err)
	}
	claimed := `attempted_at = now() - interval '10 minutes', attempted_by = ARRAY['dead-node']`
	if d.Dialect == db.SQLite {
		claimed = `attempted_at = datetime('now', '-10 minutes', 'subsec')`
	}
	dbtest.MustExec(t, d, `UPDATE river_job SET state = 'running', attempt = 1, `+claimed)
	return sc, c
}

// startLeaderFirst starts the named clients, the leader first: the others start
// once it holds River's leadership, so it is the one whose rescuer runs.
func startLeaderFirst(t *testing.T, d *db.DB, leader string, clients map[string][]jobs.Kinds) {
	t.Helper()
	jobstest.Start(t, d, jobs.Config{Node: leader, Kinds: clients[leader]})
	waitFor(t, leader+" to lead", func() bool {
		var id string
		return d.SQL.QueryRow(`SELECT leader_id FROM river_leader`).Scan(&id) == nil && id == leader
	})
	for name, kinds := range clients {
		if name != leader {
			jobstest.Start(t, d, jobs.Config{Node: name, Kinds: kinds})
		}
	}
}

// jobOf is the state and attempt of the one job of kind.
func jobOf(t *testing.T, d *db.DB, kind string) (state string, attempt int) {
	t.Helper()
	if err := d.SQL.QueryRow(`SELECT state, attempt FROM river_job WHERE kind = $1`, kind).Scan(&state, &attempt); err != nil {
		t.Fatal(err)
	}
	return state, attempt
}

// jobErrors is the errors River recorded on the one job of kind, as JSON text.
func jobErrors(t *testing.T, d *db.DB, kind string) string {
	t.Helper()
	q := `SELECT COALESCE(errors::text, '') FROM river_job WHERE kind = $1`
	if d.Dialect == db.SQLite {
		q = `SELECT COALESCE(json(errors), '') FROM river_job WHERE kind = $1`
	}
	var errs string
	if err := d.SQL.QueryRow(q, kind).Scan(&errs); err != nil {
		t.Fatal(err)
	}
	return errs
}

// waitFor polls cond for up to 2 minutes: River's election, the rescuer's first
// pass, the retry's backoff and the scheduler's pass that makes it available.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
