package campaign_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/goroutine"
	"atende/persistence/campaign"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/jobs"
	"atende/persistence/jobs/jobstest"
	"atende/persistence/schedule"
	"atende/persistence/store"
)

// channelFake stands in for the connection actors: it records every send by message
// id (a double send shows as a count of two), refuses the numbers in bad as the
// WhatsApp adapter refuses a number not on WhatsApp, and answers ERR_UNAVAILABLE for
// connections in down.
type channelFake struct {
	mu     sync.Mutex
	calls  map[engine.ID]int
	byConn map[engine.ID]int
	bodies map[engine.ID]string
	bad    map[string]bool
	down   map[engine.ID]bool
}

func newFake() *channelFake {
	return &channelFake{calls: map[engine.ID]int{}, byConn: map[engine.ID]int{}, bodies: map[engine.ID]string{},
		bad: map[string]bool{}, down: map[engine.ID]bool{}}
}

func (f *channelFake) SendCampaign(_ context.Context, connID engine.ID, m engine.CampaignOutbound) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down[connID] {
		return "", engine.Wrap(engine.ErrUnavailable, fmt.Errorf("connection %d down", connID))
	}
	if f.bad[m.To] {
		return "", engine.Wrap(engine.ErrWappInvalidContact, fmt.Errorf("%s is not on WhatsApp", m.To))
	}
	f.calls[m.MessageID]++
	f.byConn[connID]++
	f.bodies[m.MessageID] = m.Body
	return fmt.Sprintf("wa-%d", m.MessageID), nil
}

func (f *channelFake) snapshot() (calls map[engine.ID]int, byConn map[engine.ID]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	calls, byConn = map[engine.ID]int{}, map[engine.ID]int{}
	for k, v := range f.calls {
		calls[k] = v
	}
	for k, v := range f.byConn {
		byConn[k] = v
	}
	return calls, byConn
}

// seed inserts tenants 1 and 2, connections 1 and 2 of tenant 1 (dailyMax max1 and
// max2; 1 is the default) and 3 of tenant 2, and n contacts of tenant 1 (ids 1000…).
func seed(t *testing.T, d *db.DB, n, max1, max2 int) {
	t.Helper()
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'Empresa A'), (2, 'Empresa B')`)
	dbtest.MustExec(t, d, fmt.Sprintf(`INSERT INTO connections (id, company_id, name, channel, status, is_default, daily_max, token, created_at, updated_at) VALUES
		(1, 1, 'Vendas', 'whatsapp', 'CONNECTED', TRUE, %d, 't1', 0, 0),
		(2, 1, 'Suporte', 'whatsapp', 'CONNECTED', FALSE, %d, 't2', 0, 0),
		(3, 2, 'Outra', 'whatsapp', 'CONNECTED', TRUE, 0, 't3', 0, 0)`, max1, max2))
	const at = "2026-11-22T10:00:00Z"
	for start := 0; start < n; start += 500 {
		var sb strings.Builder
		sb.WriteString(`INSERT INTO contacts (id, company_id, name, name_norm, number, search, created_at, updated_at) VALUES `)
		for i := start; i < min(n, start+500); i++ {
			if i > start {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, 1, 'Cliente %d', 'cliente %d', '55659%08d', 'cliente', '%s', '%s')", 1000+i, i, i, i, at, at)
		}
		dbtest.MustExec(t, d, sb.String())
	}
	if err := schedule.Migrate(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

// clock is a fake clock the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

func newStore(t *testing.T, d *db.DB, f *channelFake, clk engine.Clock, interval time.Duration, batch int) *campaign.Store {
	t.Helper()
	s, err := campaign.New(d, campaign.Config{Contacts: store.NewContacts(d, nil), Connections: connection.New(d, nil),
		Sender: f, Clock: clk, Interval: interval, Batch: batch})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func contactIDs(from, n int) []engine.ID {
	out := make([]engine.ID, n)
	for i := range out {
		out[i] = engine.ID(1000 + from + i)
	}
	return out
}

// run steps the campaign's connections until each has nothing due before the clock
// moves; it returns the earliest next time, or zero when every connection is done.
func run(t *testing.T, s *campaign.Store, id engine.ID, now time.Time, conns ...engine.ID) time.Time {
	t.Helper()
	var next time.Time
	for _, conn := range conns {
		for {
			res, err := s.Step(context.Background(), 1, id, conn)
			if err != nil {
				t.Fatal(err)
			}
			if res.Done {
				break
			}
			if res.Next.After(now) {
				if next.IsZero() || res.Next.Before(next) {
					next = res.Next
				}
				break
			}
		}
	}
	return next
}

// TestTenThousandAcrossTwoConnectionsHonoursDailyMax: 10,000 contacts dealt to two
// connections (5,000 each) with dailyMax 2,000 and 3,000. Day one sends 2,000 and
// 3,000, the campaign then waits for midnight in the tenant's zone (America/Cuiaba),
// day two sends 2,000 and 2,000, day three the last 1,000. Every contact gets the
// message exactly once. (On SQLite under the race detector, which slows its pure-Go
// driver some thirtyfold, the same run at a fifth of the size: 2,000 contacts.)
func TestTenThousandAcrossTwoConnectionsHonoursDailyMax(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		scale := 1
		if raceOn && d.Dialect == db.SQLite {
			scale = 5
		}
		n := 10_000 / scale
		seed(t, d, n, 2000/scale, 3000/scale)
		f := newFake()
		loc := engine.LoadZone(engine.TenantTimeZone)
		clk := &clock{now: time.Date(2026, 11, 27, 15, 0, 0, 0, loc)}
		s := newStore(t, d, f, clk, -1, 500)
		c, err := s.Create(context.Background(), 1, 10, engine.CampaignInput{Kind: engine.KindCampaign, Name: "Black Friday",
			ContactIDs: contactIDs(0, n), NameFilter: "%", ChannelFilter: "%", IncludeDefault: true, StartAt: clk.Now(),
			Messages: []engine.CampaignMessage{{Body: "Oi {{firstName}}"}}})
		if err != nil {
			t.Fatal(err)
		}
		if c.Total != n || c.Status != engine.CampaignRunning {
			t.Fatalf("created %+v", c)
		}
		wantDays := []map[engine.ID]int{{1: 2000 / scale, 2: 3000 / scale}, {1: 4000 / scale, 2: 5000 / scale}, {1: 5000 / scale, 2: 5000 / scale}}
		for day, want := range wantDays {
			next := run(t, s, c.ID, clk.Now(), 1, 2)
			_, byConn := f.snapshot()
			if byConn[1] != want[1] || byConn[2] != want[2] {
				t.Fatalf("day %d: sent %v, want %v", day+1, byConn, want)
			}
			got, _ := s.Get(context.Background(), 1, c.ID)
			if day < 2 {
				midnight := time.Date(2026, 11, 28+day, 0, 0, 0, 0, loc)
				if !next.Equal(midnight) || got.WaitReason != string(engine.ErrDailyMaxReached) || !got.NextSendAt.Equal(midnight) {
					t.Fatalf("day %d: next %v (campaign %v %q), want %v", day+1, next, got.NextSendAt, got.WaitReason, midnight)
				}
				clk.set(next)
				continue
			}
			if !next.IsZero() || got.Status != engine.CampaignFinished || got.Sent != n || got.Pending != 0 {
				t.Fatalf("last day: next %v, campaign %+v", next, got)
			}
		}
		calls, _ := f.snapshot()
		if len(calls) != n {
			t.Fatalf("%d distinct messages, want %d", len(calls), n)
		}
		for id, k := range calls {
			if k != 1 {
				t.Fatalf("message %d sent %d times", id, k)
			}
		}
	})
}

// TestTwoNodesNeverSendTheSameItem: two stores on one database, each with its own
// River client (two nodes), work one campaign; meanwhile both also step it directly
// from several goroutines. Every send reaches the channel once.
func TestTwoNodesNeverSendTheSameItem(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		const n = 300
		seed(t, d, n, 0, 0)
		f := newFake()
		a, b := newStore(t, d, f, nil, -1, 7), newStore(t, d, f, nil, -1, 7)
		ctx := context.Background()
		c, err := a.Create(ctx, 1, 10, engine.CampaignInput{Kind: engine.KindCampaign, Name: "Dois nós", ContactIDs: contactIDs(0, n),
			NameFilter: "%", ChannelFilter: "%", IncludeDefault: true, StartAt: time.Now(),
			Messages: []engine.CampaignMessage{{Seq: 1, Body: "primeira"}, {Seq: 2, Body: "segunda"}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []*campaign.Store{a, b} {
			jobstest.Start(t, d, jobs.Config{RescueAfter: 5 * time.Second, Kinds: []jobs.Kinds{s.Kinds()}})
		}
		var wg sync.WaitGroup
		for i := range 6 {
			s := []*campaign.Store{a, b}[i%2]
			wg.Add(1)
			goroutine.Go(func() {
				defer wg.Done()
				for range 200 {
					res, err := s.Step(ctx, 1, c.ID, engine.ID(1+i%2))
					if err != nil {
						t.Error(err)
						return
					}
					if res.Done {
						return
					}
				}
			})
		}
		wg.Wait()
		deadline := time.Now().Add(2 * time.Minute)
		for {
			got, err := a.Get(ctx, 1, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status == engine.CampaignFinished {
				if got.Sent != 2*n {
					t.Fatalf("finished with %+v", got)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not finished: %+v", got)
			}
			time.Sleep(100 * time.Millisecond)
		}
		calls, _ := f.snapshot()
		if len(calls) != 2*n {
			t.Fatalf("%d distinct messages, want %d", len(calls), 2*n)
		}
		for id, k := range calls {
			if k != 1 {
				t.Fatalf("message %d sent %d times", id, k)
			}
		}
	})
}

// TestPauseResumeCancel: a paced campaign paused after three sends sends nothing
// more until resumed, then finishes; a cancelled one stops.
func TestPauseResumeCancel(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d, 10, 0, 0)
		f := newFake()
		clk := &clock{now: time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)}
		s := newStore(t, d, f, clk, 5*time.Second, 0)
		ctx := context.Background()
		c, err := s.Create(ctx, 1, 10, engine.CampaignInput{Kind: engine.KindCampaign, Name: "Pausa", ContactIDs: contactIDs(0, 10),
			NameFilter: "%", ChannelFilter: "%", SendFrom: []engine.ID{2}, StartAt: clk.Now(),
			Messages: []engine.CampaignMessage{{Body: "oi"}}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			res, err := s.Step(ctx, 1, c.ID, 2)
			if err != nil || res.Sent != 1 {
				t.Fatalf("step %d: %+v %v", i, res, err)
			}
			if d := res.Next.Sub(clk.Now()); d < 5*time.Second || d > 8*time.Second {
				t.Fatalf("pacing %v, want 5–8 s", d)
			}
			clk.set(res.Next)
		}
		if _, err := s.Pause(ctx, 1, c.ID); err != nil {
			t.Fatal(err)
		}
		if res, err := s.Step(ctx, 1, c.ID, 2); err != nil || !res.Done || res.Sent != 0 {
			t.Fatalf("paused step: %+v %v", res, err)
		}
		if _, err := s.Pause(ctx, 1, c.ID); engine.CodeOf(err) != engine.ErrCampaignTransition {
			t.Fatalf("pause twice: %v", err)
		}
		if _, err := s.Resume(ctx, 2, c.ID); engine.CodeOf(err) != engine.ErrNoCampaignFound {
			t.Fatalf("other tenant resumes: %v", err)
		}
		if _, err := s.Resume(ctx, 1, c.ID); err != nil {
			t.Fatal(err)
		}
		for run(t, s, c.ID, clk.Now(), 2) != (time.Time{}) {
			clk.set(clk.Now().Add(10 * time.Second))
		}
		got, _ := s.Get(ctx, 1, c.ID)
		calls, _ := f.snapshot()
		if got.Status != engine.CampaignFinished || got.Sent != 10 || len(calls) != 10 {
			t.Fatalf("after resume: %+v, %d sent", got, len(calls))
		}
		if _, err := s.Cancel(ctx, 1, c.ID); engine.CodeOf(err) != engine.ErrCampaignTransition {
			t.Fatalf("cancel a finished campaign: %v", err)
		}
	})
}

// TestBadNumberAndDroppedConnection: a number not on WhatsApp is recorded error with
// the channel's reason and the others go on; sends on a connection that is down wait
// (pending, ERR_UNAVAILABLE) and go out once it is back.
func TestBadNumberAndDroppedConnection(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d, 5, 0, 0)
		f := newFake()
		f.bad["5565900000002"] = true
		f.down[1] = true
		clk := &clock{now: time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)}
		s := newStore(t, d, f, clk, -1, 0)
		ctx := context.Background()
		if err := s.SetCredits(ctx, 1, 4); err != nil {
			t.Fatal(err)
		}
		in := engine.CampaignInput{Kind: engine.KindBroadcast, SendFrom: []engine.ID{1}, ContactIDs: contactIDs(0, 5),
			Messages: []engine.CampaignMessage{{Body: "Promoção @param1"}}}
		if _, err := s.Create(ctx, 1, 10, in); engine.CodeOf(err) != engine.ErrNoCredits {
			t.Fatalf("4 credits for 5 sends: %v", err)
		}
		if err := s.SetCredits(ctx, 1, 5); err != nil {
			t.Fatal(err)
		}
		c, err := s.Create(ctx, 1, 10, in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Step(ctx, 1, c.ID, 1)
		if err != nil || res.Sent != 0 || !res.Next.Equal(clk.Now().Add(15*time.Second)) {
			t.Fatalf("down: %+v %v", res, err)
		}
		got, _ := s.Get(ctx, 1, c.ID)
		if got.WaitReason != string(engine.ErrUnavailable) || got.Pending != 5 || got.Status != engine.CampaignRunning {
			t.Fatalf("down: %+v", got)
		}
		if credits, _ := s.Credits(ctx, 1); credits != 5 {
			t.Fatalf("credits after a send that did not go out: %d", credits)
		}
		f.mu.Lock()
		f.down[1] = false
		f.mu.Unlock()
		clk.set(res.Next)
		if next := run(t, s, c.ID, clk.Now(), 1); !next.IsZero() {
			t.Fatalf("not done: %v", next)
		}
		got, _ = s.Get(ctx, 1, c.ID)
		if got.Status != engine.CampaignFinished || got.Sent != 4 || got.Errors != 1 || got.WaitReason != "" {
			t.Fatalf("back: %+v", got)
		}
		if credits, _ := s.Credits(ctx, 1); credits != 1 {
			t.Fatalf("credits: %d, want 1 (the refused send gives its credit back)", credits)
		}
		sends, err := s.Sends(ctx, 1, c.ID, engine.SendError, 0, 100)
		if err != nil || len(sends) != 1 || sends[0].Number != "5565900000002" ||
			!strings.HasPrefix(sends[0].Error, string(engine.ErrWappInvalidContact)+": ") || !strings.Contains(sends[0].Error, "not on WhatsApp") {
			t.Fatalf("error sends: %+v %v", sends, err)
		}
		if other, _ := s.Sends(ctx, 2, c.ID, "", 0, 100); len(other) != 0 {
			t.Fatalf("tenant 2 reads tenant 1's sends: %v", other)
		}
		if _, err := s.Get(ctx, 2, c.ID); engine.CodeOf(err) != engine.ErrNoCampaignFound {
			t.Fatalf("tenant 2 reads tenant 1's broadcast: %v", err)
		}
		in.SendFrom = []engine.ID{3}
		if _, err := s.Create(ctx, 1, 10, in); engine.CodeOf(err) != engine.ErrNoWappFound {
			t.Fatalf("another tenant's connection: %v", err)
		}
	})
}

// TestStaleClaimResentUnderSameID: a node that died after claiming sends leaves them
// "sending"; once the claim is stale another run sends them under the same message
// ids (which the channel de-duplicates).
func TestStaleClaimResentUnderSameID(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d, 3, 0, 0)
		f := newFake()
		clk := &clock{now: time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)}
		s := newStore(t, d, f, clk, -1, 0)
		ctx := context.Background()
		c, err := s.Create(ctx, 1, 10, engine.CampaignInput{Kind: engine.KindCampaign, Name: "Crash", ContactIDs: contactIDs(0, 3),
			NameFilter: "%", ChannelFilter: "%", SendFrom: []engine.ID{1}, StartAt: clk.Now(),
			Messages: []engine.CampaignMessage{{Body: "oi @param1"}}})
		if err != nil {
			t.Fatal(err)
		}
		dbtest.MustExec(t, d, `UPDATE campaign_sends SET status = 'sending', claimed_at = $1`, clk.Now().UnixMicro())
		res, err := s.Step(ctx, 1, c.ID, 1)
		if err != nil || res.Done || res.Sent != 0 || !res.Next.Equal(clk.Now().Add(2*time.Minute)) {
			t.Fatalf("fresh claims of another run: %+v %v", res, err)
		}
		var ids []engine.ID
		r, err := d.SQL.Query(`SELECT message_id FROM campaign_sends ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var id engine.ID
			_ = r.Scan(&id)
			ids = append(ids, id)
		}
		r.Close()
		clk.set(res.Next.Add(time.Second))
		if next := run(t, s, c.ID, clk.Now(), 1); !next.IsZero() {
			t.Fatalf("not done: %v", next)
		}
		calls, _ := f.snapshot()
		for _, id := range ids {
			if calls[id] != 1 {
				t.Fatalf("message %d sent %d times (calls %v)", id, calls[id], calls)
			}
		}
	})
}
