package schedule_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/jobs"
	"atende/persistence/jobs/jobstest"
	"atende/persistence/schedule"
	"atende/persistence/store"
)

const (
	tenantA engine.ID = 1
	tenantB engine.ID = 2
)

// recordingSender stands in for the ticket actor's outbound path: it counts every
// delivery by message id, so a test sees a double send as a count of two.
type recordingSender struct {
	mu     sync.Mutex // guards calls and bodies
	calls  map[engine.ID]int
	bodies map[engine.ID]string
	at     map[engine.ID]time.Time
	fail   error // answered instead of delivering while set
}

func newSender() *recordingSender {
	return &recordingSender{calls: map[engine.ID]int{}, bodies: map[engine.ID]string{}, at: map[engine.ID]time.Time{}}
}

func (r *recordingSender) DeliverScheduled(_ context.Context, d engine.ScheduledDelivery) (engine.ID, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return 0, r.fail
	}
	r.calls[d.MessageID]++
	r.bodies[d.MessageID] = d.Body
	r.at[d.MessageID] = time.Now()
	return 77, nil
}

func (r *recordingSender) count(id engine.ID) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[id]
}

func (r *recordingSender) total() (n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.calls {
		n += c
	}
	return n
}

// seed inserts two tenants, a user and a contact of tenant A.
func seed(t *testing.T, d *db.DB) {
	t.Helper()
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'Empresa A'), (2, 'Empresa B')`)
	dbtest.MustExec(t, d, `INSERT INTO users (id, company_id, name, name_key, search, email, password_hash, profile,
		created_at, updated_at) VALUES (10, 1, 'Ana', 'ana', 'ana', 'ana@a.test', 'x', 'user', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')`)
	if err := schedule.Migrate(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

func newScheduler(t *testing.T, d *db.DB, sender engine.ScheduleSender) *schedule.Scheduler {
	t.Helper()
	s, err := schedule.New(d, schedule.Config{
		IDs: db.NewIDs(d, 16), Contacts: store.NewContacts(d, nil), Sender: sender,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// start starts a node's River client working s's fires.
func start(t *testing.T, d *db.DB, s *schedule.Scheduler) {
	t.Helper()
	jobstest.Start(t, d, jobs.Config{RescueAfter: 5 * time.Second, Kinds: []jobs.Kinds{s.Kinds()}})
}

// waitStatus polls the schedule until it has status or the deadline passes.
func waitStatus(t *testing.T, s *schedule.Scheduler, id engine.ID, status string) engine.Schedule {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		sc, err := s.Get(context.Background(), tenantA, id)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Status == status {
			return sc
		}
		if time.Now().After(deadline) {
			t.Fatalf("schedule %d still %s (%q), want %s", id, sc.Status, sc.ErrorMessage, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func message(phone string, at time.Time) engine.ScheduleInput {
	return engine.ScheduleInput{Kind: engine.ScheduleMessage, PhoneNumber: phone, Message: "{{ms}}, {{firstName}}! {{user}}",
		UserID: 10, SendAt: at}
}

func TestFiresOnceAtItsTime(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		sender := newSender()
		s := newScheduler(t, d, sender)
		start(t, d, s)
		at := time.Now().Add(1500 * time.Millisecond)
		sc, err := s.Create(context.Background(), tenantA, message("5565999990001", at))
		if err != nil {
			t.Fatal(err)
		}
		if sc.Status != engine.SchedulePending {
			t.Fatalf("created with status %s", sc.Status)
		}
		got := waitStatus(t, s, sc.ID, engine.ScheduleSent)
		if n := sender.count(sc.MessageID); n != 1 {
			t.Fatalf("delivered %d times, want 1", n)
		}
		sender.mu.Lock()
		firedAt, body := sender.at[sc.MessageID], sender.bodies[sc.MessageID]
		sender.mu.Unlock()
		if firedAt.Before(at) {
			t.Fatalf("fired at %v, before its time %v", firedAt, at)
		}
		// The variables were rendered at send time with the contact created for the
		// bare number (its name is the number) and the scheduling attendant's name.
		if want := engine.Greeting(firedAt, engine.LoadZone(engine.TenantTimeZone)) + ", 5565999990001! Ana"; body != want {
			t.Fatalf("body %q, want %q", body, want)
		}
		if got.Contact != nil || got.SentTicketID != 77 {
			t.Fatalf("after fire: %+v", got)
		}
		c, err := store.NewContacts(d, nil).FindByNumber(context.Background(), tenantA, "5565999990001")
		if err != nil || c.ID == 0 {
			t.Fatalf("contact for the bare number not created: %v", err)
		}
	})
}

// A job that runs again after its send (the node died between the send and the job's
// completion) hands the same message id to the outbound path, which records a
// message id once; a schedule already sent is not sent again.
func TestRetryAfterCrashUsesSameMessageID(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		sender := newSender()
		s := newScheduler(t, d, sender) // not started: the test runs the job itself
		sc, err := s.Create(context.Background(), tenantA, message("5565999990002", time.Now().Add(time.Hour)))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Fire(context.Background(), tenantA, sc.ID, 1, schedule.MaxAttempts); err != nil {
			t.Fatal(err)
		}
		// The same job again once sent: nothing goes out.
		if err := s.Fire(context.Background(), tenantA, sc.ID, 2, schedule.MaxAttempts); err != nil {
			t.Fatal(err)
		}
		if n := sender.count(sc.MessageID); n != 1 {
			t.Fatalf("a second run of a sent schedule delivered again: %d", n)
		}
		// The crash: the send happened but the sent status never committed.
		dbtest.MustExec(t, d, `UPDATE schedules SET status = 'pending' WHERE id = $1`, sc.ID)
		if err := s.Fire(context.Background(), tenantA, sc.ID, 2, schedule.MaxAttempts); err != nil {
			t.Fatal(err)
		}
		sender.mu.Lock()
		ids := len(sender.calls)
		sender.mu.Unlock()
		if ids != 1 {
			t.Fatalf("the retry used another message id: %d ids", ids)
		}
	})
}

func TestDueWhileDownFiresOnceAfterStart(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		sender := newSender()
		s := newScheduler(t, d, sender)
		sc, err := s.Create(context.Background(), tenantA, message("5565999990003", time.Now().Add(100*time.Millisecond)))
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // due while no node runs timers
		if n := sender.total(); n != 0 {
			t.Fatalf("fired with no node started: %d", n)
		}
		start(t, d, s)
		waitStatus(t, s, sc.ID, engine.ScheduleSent)
		if n := sender.count(sc.MessageID); n != 1 {
			t.Fatalf("delivered %d times, want 1", n)
		}
	})
}

func TestFailureKeepsPendingWithErrorThenMarksError(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		sender := newSender()
		sender.fail = engine.E(engine.ErrUnavailable)
		s := newScheduler(t, d, sender)
		sc, err := s.Create(context.Background(), tenantA, message("5565999990004", time.Now().Add(time.Hour)))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Fire(context.Background(), tenantA, sc.ID, 1, 3); err == nil {
			t.Fatal("a failed send reported success to River (no retry)")
		}
		got, _ := s.Get(context.Background(), tenantA, sc.ID)
		if got.Status != engine.SchedulePending || got.ErrorMessage != string(engine.ErrUnavailable) {
			t.Fatalf("after a failed attempt: %s %q", got.Status, got.ErrorMessage)
		}
		_ = s.Fire(context.Background(), tenantA, sc.ID, 3, 3)
		got, _ = s.Get(context.Background(), tenantA, sc.ID)
		if got.Status != engine.ScheduleError {
			t.Fatalf("after the last attempt: %s", got.Status)
		}
	})
}

func TestEditAndDelete(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		sender := newSender()
		s := newScheduler(t, d, sender)
		ctx := context.Background()
		sc, err := s.Create(ctx, tenantA, message("5565999990005", time.Now().Add(time.Hour)))
		if err != nil {
			t.Fatal(err)
		}
		// Another tenant cannot see, edit or delete it.
		if _, err := s.Get(ctx, tenantB, sc.ID); engine.CodeOf(err) != engine.ErrNoScheduleFound {
			t.Fatalf("tenant B get: %v", err)
		}
		if err := s.Delete(ctx, tenantB, sc.ID); engine.CodeOf(err) != engine.ErrNoScheduleFound {
			t.Fatalf("tenant B delete: %v", err)
		}
		// Moved to a moment just ahead: the old hour-away timer is cancelled, the new
		// one fires.
		in := message("5565999990005", time.Now().Add(500*time.Millisecond))
		in.Message = "moved"
		if _, err := s.Update(ctx, tenantA, sc.ID, in); err != nil {
			t.Fatal(err)
		}
		start(t, d, s)
		waitStatus(t, s, sc.ID, engine.ScheduleSent)
		if err := s.Delete(ctx, tenantA, sc.ID); engine.CodeOf(err) != engine.ErrScheduleSent {
			t.Fatalf("delete a sent one: %v", err)
		}
		if _, err := s.Update(ctx, tenantA, sc.ID, in); engine.CodeOf(err) != engine.ErrScheduleSent {
			t.Fatalf("edit a sent one: %v", err)
		}
		// A deleted one never fires.
		gone, err := s.Create(ctx, tenantA, message("5565999990006", time.Now().Add(300*time.Millisecond)))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, tenantA, gone.ID); err != nil {
			t.Fatal(err)
		}
		later, err := s.Create(ctx, tenantA, message("5565999990007", time.Now().Add(600*time.Millisecond)))
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, s, later.ID, engine.ScheduleSent)
		if n := sender.count(gone.MessageID); n != 0 {
			t.Fatalf("a deleted schedule fired %d times", n)
		}
		// Another tenant's references are refused.
		bad := message("5565999990008", time.Now().Add(time.Hour))
		bad.UserID = 999
		if _, err := s.Create(ctx, tenantA, bad); engine.CodeOf(err) != engine.ErrNoUserFound {
			t.Fatalf("foreign user: %v", err)
		}
	})
}

// Two nodes (two River clients on one PostgreSQL database) fire every schedule once.
func TestTwoNodesNeverSendTwice(t *testing.T) {
	url := dbtest.URL(t, db.Postgres)
	open := func() *db.DB {
		d, err := db.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	d1, d2 := open(), open()
	if _, err := d1.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	seed(t, d1)
	sender := newSender()
	n1, n2 := newScheduler(t, d1, sender), newScheduler(t, d2, sender)
	start(t, d1, n1)
	start(t, d2, n2)
	const n = 200
	at := time.Now().Add(time.Second)
	var last engine.Schedule
	for i := range n {
		sc, err := n1.Create(context.Background(), tenantA, message("55659999"+pad(i), at))
		if err != nil {
			t.Fatal(err)
		}
		last = sc
	}
	deadline := time.Now().Add(90 * time.Second)
	for sender.total() < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	waitStatus(t, n1, last.ID, engine.ScheduleSent)
	sender.mu.Lock()
	defer sender.mu.Unlock()
	if len(sender.calls) != n {
		t.Fatalf("%d schedules delivered, want %d", len(sender.calls), n)
	}
	for id, c := range sender.calls {
		if c != 1 {
			t.Fatalf("message %d delivered %d times", id, c)
		}
	}
}

func pad(i int) string { return fmt.Sprintf("%05d", i) }
