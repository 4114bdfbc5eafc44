package schedule_test

import (
	"context"
	"fmt"
	"reflect"
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
	last   map[engine.ID]engine.ScheduledDelivery
	fail   error // answered instead of delivering while set
}

func newSender() *recordingSender {
	return &recordingSender{calls: map[engine.ID]int{}, bodies: map[engine.ID]string{}, at: map[engine.ID]time.Time{},
		last: map[engine.ID]engine.ScheduledDelivery{}}
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
	r.last[d.MessageID] = d
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
// A fire hands the sender what it read anyway in its one query — the contact's
// number, the scheduler as a principal with their queues as they are at send time, and
// the contact's current ticket on the sending connection — so that finding or opening
// the contact's ticket reads none of them again; a scheduler who is
// gone is handed as an invalid principal, for the sender to refuse.
func TestFireHandsTheSenderTheNumberAndTheScheduler(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		dbtest.MustExec(t, d, `INSERT INTO queues (id, company_id, name, color, created_at, updated_at) VALUES
			(31, 1, 'Vendas', '#111111', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
			(32, 1, 'Suporte', '#222222', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`)
		dbtest.MustExec(t, d, `INSERT INTO user_queues (company_id, user_id, queue_id) VALUES (1, 10, 32), (1, 10, 31)`)
		dbtest.MustExec(t, d, `INSERT INTO users (id, company_id, name, name_key, search, email, password_hash, profile,
			created_at, updated_at) VALUES (11, 1, 'Bia', 'bia', 'bia', 'bia@a.test', 'x', 'admin', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')`)
		// The tenant's default connection, where Ana's customer already has ticket 900.
		dbtest.MustExec(t, d, `INSERT INTO connections (id, company_id, name, channel, status, is_default, daily_max, token, created_at, updated_at)
			VALUES (41, 1, 'Zap', 'whatsapp', 'CONNECTED', TRUE, 0, 'tk41', 0, 0)`)
		customer, _, err := store.NewContacts(d, nil).FindOrCreateByNumber(context.Background(), tenantA, "5565999990007", "Cliente")
		if err != nil {
			t.Fatal(err)
		}
		dbtest.MustExec(t, d, `INSERT INTO contact_tickets (connection_id, contact_id, company_id, ticket_id) VALUES (41, $1, 1, 900)`, customer.ID)
		sender := newSender()
		s := newScheduler(t, d, sender)
		at := time.Now().Add(1500 * time.Millisecond)
		byAna := message("", at)
		byAna.ContactID = customer.ID
		ana, err := s.Create(context.Background(), tenantA, byAna)
		if err != nil {
			t.Fatal(err)
		}
		byBia := message("5565999990008", at)
		byBia.UserID = 11
		bia, err := s.Create(context.Background(), tenantA, byBia)
		if err != nil {
			t.Fatal(err)
		}
		// Bia leaves before her message falls due.
		dbtest.MustExec(t, d, `DELETE FROM users WHERE id = 11`)
		start(t, d, s)
		waitStatus(t, s, ana.ID, engine.ScheduleSent)
		waitStatus(t, s, bia.ID, engine.ScheduleSent)
		sender.mu.Lock()
		got, gone := sender.last[ana.MessageID], sender.last[bia.MessageID]
		sender.mu.Unlock()
		want := engine.Principal{UserID: 10, CompanyID: tenantA, Profile: "user", QueueIDs: []engine.ID{31, 32}}
		if got.ContactNumber != "5565999990007" || !reflect.DeepEqual(got.By, want) || got.ConnectionID != 41 ||
			!got.CurrentRead || got.Current != 900 {
			t.Fatalf("delivery number %q by %+v on %d current %d (read %v), want 5565999990007 by %+v on 41 current 900",
				got.ContactNumber, got.By, got.ConnectionID, got.Current, got.CurrentRead, want)
		}
		// Bia's schedule names a number, not a contact: its contact is found or made
		// after the read, and the sender reads the guard itself.
		if gone.ContactNumber != "5565999990008" || gone.By.Valid() || len(gone.By.QueueIDs) != 0 ||
			gone.CurrentRead || gone.Current != 0 {
			t.Fatalf("delivery of a gone user's schedule: number %q by %+v current %d (read %v)",
				gone.ContactNumber, gone.By, gone.Current, gone.CurrentRead)
		}
	})
}

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
