package groups_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/groups"
	"atende/persistence/jobs"
	"atende/persistence/jobs/jobstest"
	"atende/persistence/schedule"
)

// makerFake stands in for the connection actors: it creates groups by key (the same
// key is the same group, as WhatsApp's create key), finds one by name on a resume,
// counts the WhatsApp creations and answers ERR_UNAVAILABLE while down.
type makerFake struct {
	mu       sync.Mutex
	byKey    map[string]engine.GroupResult
	byName   map[string]engine.GroupResult
	creates  int
	resumes  int
	down     bool
	lose     int // answers lost after the group is made (a crash before the outcome)
	invalid  bool
	requests []engine.GroupRequest
}

func newMaker() *makerFake {
	return &makerFake{byKey: map[string]engine.GroupResult{}, byName: map[string]engine.GroupResult{}}
}

func (f *makerFake) CreateGroup(_ context.Context, companyID, connID engine.ID, req engine.GroupRequest) (engine.GroupResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req)
	if f.down {
		return engine.GroupResult{}, engine.Wrap(engine.ErrUnavailable, fmt.Errorf("connection %d down", connID))
	}
	if f.invalid {
		return engine.GroupResult{}, engine.E(engine.ErrWappInvalidContact)
	}
	if req.Resume {
		f.resumes++
	}
	res, ok := f.byKey[req.Key]
	if !ok && req.Resume {
		res, ok = f.byName[req.Name]
	}
	if !ok {
		f.creates++
		res = engine.GroupResult{JID: fmt.Sprintf("1203630%d@g.us", f.creates), InviteLink: "https://chat.whatsapp.com/" + req.Name, Participants: 3}
		f.byKey[req.Key], f.byName[req.Name] = res, res
	}
	if f.lose > 0 {
		f.lose--
		return engine.GroupResult{}, engine.Wrap(engine.ErrUnavailable, fmt.Errorf("answer lost"))
	}
	return res, nil
}

func (f *makerFake) count() int { f.mu.Lock(); defer f.mu.Unlock(); return f.creates }

func seed(t *testing.T, d *db.DB) {
	t.Helper()
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'Empresa A'), (2, 'Empresa B')`)
	dbtest.MustExec(t, d, `INSERT INTO connections (id, company_id, name, channel, status, is_default, daily_max, token, created_at, updated_at) VALUES
		(1, 1, 'Vendas', 'whatsapp', 'CONNECTED', TRUE, 0, 't1', 0, 0),
		(2, 1, 'Site', 'socket', 'CONNECTED', FALSE, 0, 't2', 0, 0),
		(3, 2, 'Outra', 'whatsapp', 'CONNECTED', TRUE, 0, 't3', 0, 0)`)
	if err := schedule.Migrate(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

func input(count, max int) engine.GroupBatchInput {
	return engine.GroupBatchInput{Name: "Turma", Root: "007", Admin1: "5511999990001", Admin2: "5511999990002",
		Count: count, MaxParticipants: max, ConnectionID: 1, MediaPath: "1/pic.jpg", MediaType: "image"}
}

func newStore(t *testing.T, d *db.DB, m engine.GroupMaker, onChange func(engine.GroupBatch)) *groups.Store {
	t.Helper()
	s, err := groups.New(d, groups.Config{Maker: m, Connections: connection.New(d, nil), OnChange: onChange,
		Retry: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// startNode starts a River client working s's jobs, as a node's client does.
func startNode(t *testing.T, d *db.DB, s *groups.Store) {
	t.Helper()
	jobstest.Start(t, d, jobs.Config{Kinds: []jobs.Kinds{s.Kinds()}})
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// A batch of 3 is created by the River job: "Turma 007" … "Turma 009", each once,
// with both admins, the progress published after each group and the batch finished.
func TestBatchCreatesGroupsInSequence(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		m := newMaker()
		var mu sync.Mutex
		var progress []int
		s := newStore(t, d, m, func(b engine.GroupBatch) { mu.Lock(); progress = append(progress, b.Created); mu.Unlock() })
		startNode(t, d, s)
		ctx := context.Background()
		b, err := s.Create(ctx, 1, 5, input(3, 10))
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != engine.GroupBatchRunning || len(b.Groups) != 3 || b.Groups[2].Name != "Turma 009" || b.Token == "" {
			t.Fatalf("created %+v", b)
		}
		waitFor(t, "the batch to finish", func() bool {
			got, err := s.Get(ctx, 1, b.ID)
			return err == nil && got.Status == engine.GroupBatchFinished
		})
		got, _ := s.Get(ctx, 1, b.ID)
		if got.Created != 3 || got.Failed != 0 || m.count() != 3 {
			t.Fatalf("batch %+v, creates %d", got, m.count())
		}
		for i, g := range got.Groups {
			if g.Status != engine.GroupCreated || g.JID == "" || g.InviteLink == "" || g.Participants != 3 || g.Name != fmt.Sprintf("Turma %03d", 7+i) {
				t.Fatalf("group %d: %+v", i, g)
			}
		}
		m.mu.Lock()
		for _, r := range m.requests {
			if len(r.Admins) != 2 || r.Admins[0] != "5511999990001" || r.Resume || r.MediaPath != "1/pic.jpg" {
				t.Errorf("request %+v", r)
			}
		}
		m.mu.Unlock()
		waitFor(t, "the last progress", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(progress) >= 4 && progress[len(progress)-1] == 3
		})
		mu.Lock()
		if progress[0] != 1 || progress[1] != 2 || progress[2] != 3 {
			t.Errorf("progress %v", progress)
		}
		mu.Unlock()
		list, err := s.List(ctx, 1)
		if err != nil || len(list) != 1 || len(list[0].Groups) != 3 {
			t.Fatalf("list %+v %v", list, err)
		}
		if other, _ := s.List(ctx, 2); len(other) != 0 {
			t.Fatalf("tenant 2 sees %+v", other)
		}
		if _, err := s.Get(ctx, 2, b.ID); engine.CodeOf(err) != engine.ErrNoGroupBatchFound {
			t.Fatalf("tenant 2 reads the batch: %v", err)
		}
	})
}

// The create's answer is lost after WhatsApp made the group (a crash before the
// outcome is recorded): the next attempt resumes under the same key and finds the
// group; the connection down keeps the group pending until it is back. No group is
// made twice.
func TestBatchResumesWithoutCreatingTwice(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		m := newMaker()
		m.lose = 2
		s := newStore(t, d, m, nil)
		ctx := context.Background()
		b, err := s.Create(ctx, 1, 5, input(2, 10)) // no River client: stepped by hand
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			if _, err := s.Step(ctx, 1, b.ID); engine.CodeOf(err) != engine.ErrUnavailable {
				t.Fatalf("lost answer %d: %v", i, err)
			}
		}
		m.mu.Lock()
		m.down = true
		m.mu.Unlock()
		if _, err := s.Step(ctx, 1, b.ID); engine.CodeOf(err) != engine.ErrUnavailable {
			t.Fatalf("down: %v", err)
		}
		m.mu.Lock()
		m.down = false
		m.mu.Unlock()
		for {
			done, err := s.Step(ctx, 1, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			if done {
				break
			}
		}
		got, _ := s.Get(ctx, 1, b.ID)
		if got.Status != engine.GroupBatchFinished || got.Created != 2 || m.count() != 2 {
			t.Fatalf("batch %+v, creates %d", got, m.count())
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.requests[0].Resume || !m.requests[1].Resume || m.requests[0].Key != m.requests[1].Key {
			t.Fatalf("requests %+v", m.requests)
		}
	})
}

// A refusal (an admin not on WhatsApp) is recorded on the group with its code and
// the batch goes on to finish with its failures counted.
func TestBatchRecordsRefusals(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		m := newMaker()
		m.invalid = true
		s := newStore(t, d, m, nil)
		ctx := context.Background()
		b, err := s.Create(ctx, 1, 5, input(2, 10))
		if err != nil {
			t.Fatal(err)
		}
		for done := false; !done; {
			if done, err = s.Step(ctx, 1, b.ID); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := s.Get(ctx, 1, b.ID)
		if got.Failed != 2 || got.Created != 0 || got.Groups[0].Status != engine.GroupError || got.Groups[0].Error != "ERR_WAPP_INVALID_CONTACT" {
			t.Fatalf("batch %+v", got)
		}
	})
}

// Create refuses another tenant's connection, a connection that is not WhatsApp and
// the section-5 faults.
func TestCreateRefusals(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		s := newStore(t, d, newMaker(), nil)
		ctx := context.Background()
		cases := []struct {
			name string
			edit func(*engine.GroupBatchInput)
			want engine.Code
		}{
			{"other tenant's connection", func(in *engine.GroupBatchInput) { in.ConnectionID = 3 }, engine.ErrNoWappFound},
			{"unknown connection", func(in *engine.GroupBatchInput) { in.ConnectionID = 99 }, engine.ErrNoWappFound},
			{"web chat connection", func(in *engine.GroupBatchInput) { in.ConnectionID = 2 }, engine.ErrGroupsNotSupported},
			{"no name", func(in *engine.GroupBatchInput) { in.Name = "" }, engine.ErrValidation},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				in := input(2, 10)
				c.edit(&in)
				if _, err := s.Create(ctx, 1, 5, in); engine.CodeOf(err) != c.want {
					t.Fatalf("err %v, want %s", err, c.want)
				}
			})
		}
		if list, _ := s.List(ctx, 1); len(list) != 0 {
			t.Fatalf("refused batches were written: %+v", list)
		}
	})
}

// /groupjoin: 40 visitors at once on 3 groups with room for 5 each (3 seats taken
// by the account and the admins, max 8): 15 go in, 5 per group in sequence, the
// other 25 get ERR_GROUPS_FULL; an unknown token ERR_NO_GROUP_BATCH_FOUND.
func TestJoinNeverOverfills(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		s := newStore(t, d, newMaker(), nil)
		ctx := context.Background()
		b, err := s.Create(ctx, 1, 5, input(3, 8))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Join(ctx, b.Token); engine.CodeOf(err) != engine.ErrGroupsFull {
			t.Fatalf("before any group is created: %v", err)
		}
		for done := false; !done; {
			if done, err = s.Step(ctx, 1, b.ID); err != nil {
				t.Fatal(err)
			}
		}
		var ok, full atomic.Int32
		links := sync.Map{}
		var wg sync.WaitGroup
		for range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				link, err := s.Join(ctx, b.Token)
				switch {
				case err == nil:
					ok.Add(1)
					n, _ := links.LoadOrStore(link, new(atomic.Int32))
					n.(*atomic.Int32).Add(1)
				case engine.CodeOf(err) == engine.ErrGroupsFull:
					full.Add(1)
				default:
					t.Errorf("join: %v", err)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 15 || full.Load() != 25 {
			t.Fatalf("joined %d, full %d", ok.Load(), full.Load())
		}
		got, _ := s.Get(ctx, 1, b.ID)
		for _, g := range got.Groups {
			if g.Joined != 5 {
				t.Fatalf("group %s joined %d, want 5", g.Name, g.Joined)
			}
			if n, _ := links.Load(g.InviteLink); n == nil || n.(*atomic.Int32).Load() != 5 {
				t.Fatalf("link of %s handed out %v times", g.Name, n)
			}
		}
		if got.Joined != 15 {
			t.Fatalf("batch joined %d", got.Joined)
		}
		if _, err := s.Join(ctx, "nope"); engine.CodeOf(err) != engine.ErrNoGroupBatchFound {
			t.Fatalf("unknown token: %v", err)
		}
	})
}

// The node working a batch died mid-run: its job stays "running" in River. A node
// that starts later rescues it once the job's timeout has passed and finishes the
// batch; before the job had a timeout River never took it back (the node's client
// has none), and the catch-up insert was skipped as a duplicate of that running job.
func TestBatchOfADeadNodeIsRescued(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		m := newMaker()
		s := newStore(t, d, m, nil)
		ctx := context.Background()
		b, err := s.Create(ctx, 1, 5, input(2, 10))
		if err != nil {
			t.Fatal(err)
		}
		// The dead node claimed the job ten minutes ago and never answered.
		ago := `now() - interval '10 minutes'`
		if d.Dialect == db.SQLite {
			ago = `datetime('now', '-10 minutes', 'subsec')`
		}
		dbtest.MustExec(t, d, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = `+ago+` WHERE kind = 'groups.create'`)

		jobstest.Start(t, d, jobs.Config{RescueAfter: time.Second, Kinds: []jobs.Kinds{s.Kinds()}})
		// A bound against a hang: River's leader election, rescue and first retry.
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
			got, err := s.Get(ctx, 1, b.ID)
			if err == nil && got.Status == engine.GroupBatchFinished {
				if got.Created != 2 || m.count() != 2 {
					t.Fatalf("batch %+v, creates %d", got, m.count())
				}
				return
			}
			if time.Now().After(deadline) {
				var state string
				_ = d.SQL.QueryRow(`SELECT state FROM river_job WHERE kind = 'groups.create'`).Scan(&state)
				t.Fatalf("the dead node's batch was never finished: %+v, %v; job %s", got, err, state)
			}
		}
	})
}
