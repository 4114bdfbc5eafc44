package dashboard

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/goroutine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
	"atende/persistence/projection"
)

// randomCommand picks a ticket command with the mix a contact centre sees, plus
// survey answers in and out of range.
func randomCommand(r *rand.Rand, next func() engine.ID) engine.TicketCommand {
	user := engine.ID(r.IntN(4))
	switch r.IntN(16) {
	case 0:
		return engine.Accept{UserID: 1 + engine.ID(r.IntN(3))}
	case 1, 2:
		return engine.Resolve{}
	case 3:
		return engine.Return{}
	case 4:
		return engine.Reopen{UserID: 1 + engine.ID(r.IntN(3))}
	case 5:
		return engine.Transfer{UserID: user, QueueID: engine.ID(r.IntN(3)), ConnectionID: 30}
	case 6:
		if r.IntN(15) == 0 {
			return engine.Delete{}
		}
		return engine.MarkRead{}
	case 7, 8:
		return engine.ReceiveMessage{MessageID: next(), ProviderID: "p" + strconv.Itoa(int(next())), Body: "oi"}
	case 9, 10:
		return engine.SendMessage{MessageID: next(), SenderID: 1 + engine.ID(r.IntN(3)), Body: "olá"}
	case 11:
		return engine.SendAutomaticMessage{MessageID: next(), Body: "bom dia"}
	case 12:
		return engine.AskRating{MessageID: next(), Body: engine.RatingQuestion}
	case 13:
		return engine.AddWhisper{MessageID: next(), SenderID: 1, Body: "nota"}
	default:
		return engine.ReceiveMessage{MessageID: next(), ProviderID: "p" + strconv.Itoa(int(next())),
			Body: []string{"1", "2", "3", "4", " 2 "}[r.IntN(5)]}
	}
}

// writeRandomJournal appends random valid histories of n tickets, interleaved, with
// times spread over three years in steps from seconds to days (so that counters fall on
// many days, months and years, and some latencies on bucket edges).
// Tickets are company's, numbered first+1..first+n, and their contacts
// company*100+0..6.
func writeRandomJournal(t *testing.T, j *journal.Store, r *rand.Rand, company engine.ID, first, n int) {
	t.Helper()
	ctx := context.Background()
	var msg engine.ID = 1000
	next := func() engine.ID { msg++; return msg }
	type live struct {
		s   engine.TicketState
		now time.Time
	}
	base := time.Date(2024, 12, 30, 22, 0, 0, 0, time.UTC)
	tickets := make([]*live, n)
	for i := range tickets {
		tickets[i] = &live{now: base.Add(time.Duration(r.IntN(3*365*24)) * time.Hour)}
	}
	steps := []time.Duration{time.Second, 3 * time.Second, time.Minute, 17 * time.Minute, 5 * time.Hour, 30 * time.Hour, 40 * 24 * time.Hour}
	for round := 0; round < n*20; round++ {
		i := r.IntN(n)
		l := tickets[i]
		var cmd engine.TicketCommand
		if l.s.Status == "" {
			cmd = engine.OpenTicket{TicketID: engine.ID(first + i + 1), UUID: fmt.Sprintf("u-%d", first+i+1), CompanyID: company,
				ContactID: company*100 + engine.ID(i%7), ConnectionID: 30, Channel: []string{engine.ChannelWhatsApp, engine.ChannelTelegram, engine.ChannelSocket}[r.IntN(3)],
				QueueID: engine.ID(r.IntN(3)), UserID: engine.ID(r.IntN(3)), Status: []string{engine.StatusOpen, engine.StatusPending, engine.StatusClosed}[r.IntN(3)],
				Protocol: "p"}
			if c := cmd.(engine.OpenTicket); c.Status == engine.StatusOpen && c.UserID == 0 {
				c.UserID = 1
				cmd = c
			}
		} else {
			cmd = randomCommand(r, next)
		}
		l.now = l.now.Add(steps[r.IntN(len(steps))])
		evs, err := engine.DecideTicket(l.s, cmd, l.now)
		if err != nil || len(evs) == 0 {
			continue
		}
		data := make([]engine.EventData, len(evs))
		for k, ev := range evs {
			typ, b, err := engine.EncodeTicketEvent(ev)
			if err != nil {
				t.Fatal(err)
			}
			data[k] = engine.EventData{Type: typ, Data: b}
		}
		if _, err := j.Append(ctx, company, "ticket/"+strconv.Itoa(first+i+1), l.s.Version, data...); err != nil {
			t.Fatalf("append: %v", err)
		}
		l.s = engine.FoldTicket(l.s, evs)
	}
}

// recount computes every counter from the journal directly, ticket by ticket, without
// the Folder: what happened is placed on the day it happened in its tenant's zone
// (zones); the status cells come from each ticket's final state.
func recount(t *testing.T, j *journal.Store, zones map[engine.ID]*time.Location) (Deltas, map[engine.ID][2]int) {
	t.Helper()
	events, err := j.ReadAll(context.Background(), 0, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	out := Deltas{}
	var company engine.ID
	put := func(at time.Time, metric string, q, u engine.ID, ch string, n int64) {
		d, m, y := Periods(at, zones[company])
		for _, k := range []Key{
			{company, GrainDay, d, metric, q, u, ch}, {company, GrainWeek, WeekNumber(d), metric, q, u, ch},
			{company, GrainMonth, m, metric, q, u, ch},
			{company, GrainYear, y, metric, q, u, ch},
		} {
			out[k] += n
		}
	}
	type hist struct {
		company          engine.ID
		s                engine.TicketState
		cycle            time.Time
		responded, rated bool
	}
	byTicket := map[string]*hist{}
	appraisal := map[engine.ID][2]int{}
	for _, ev := range events {
		h := byTicket[ev.StreamID]
		if h == nil {
			h = &hist{company: ev.CompanyID}
			byTicket[ev.StreamID] = h
		}
		company = h.company
		if zones[company] == nil {
			t.Fatalf("no zone for tenant %d", company)
		}
		te, err := engine.DecodeTicketEvent(ev.Type, ev.Data)
		if err != nil {
			t.Fatal(err)
		}
		before := h.s
		at := te.OccurredAt()
		switch e := te.(type) {
		case engine.TicketOpened:
			put(at, MetricOpened, e.QueueID, 0, "", 1)
			h.cycle = at
		case engine.TicketResolved:
			put(at, MetricResolved, before.QueueID, 0, "", 1)
			put(at, bucketMetric(MetricResolutionPrefix, Bucket(at.Sub(h.cycle))), before.QueueID, 0, "", 1)
		case engine.TicketReopened:
			h.cycle = at
		case engine.TicketMessageReceived:
			put(at, MetricMessagesIn, before.QueueID, 0, "", 1)
		case engine.TicketMessageSent:
			put(at, MetricMessagesOut, before.QueueID, 0, "", 1)
			if !h.responded && !e.Automatic && e.SenderID != 0 {
				h.responded = true
				put(at, bucketMetric(MetricFirstResponsePrefix, Bucket(at.Sub(before.CreatedAt))), before.QueueID, 0, "", 1)
			}
		case engine.TicketRated:
			if h.rated {
				t.Fatalf("%s rated twice", ev.StreamID)
			}
			h.rated = true
			put(at, MetricRateSum, e.QueueID, e.UserID, "", int64(e.Score))
			put(at, MetricRateCount, e.QueueID, e.UserID, "", 1)
			a := appraisal[e.ContactID]
			appraisal[e.ContactID] = [2]int{a[0] + e.Score, a[1] + 1}
		}
		h.s = engine.EvolveTicket(h.s, te)
	}
	for _, h := range byTicket {
		company = h.company
		if h.s.Exists() {
			put(h.s.CreatedAt, MetricStatusPrefix+h.s.Status, h.s.QueueID, h.s.UserID, h.s.Channel, 1)
		}
	}
	for k, n := range out {
		if n == 0 {
			delete(out, k)
		}
	}
	return out, appraisal
}

func storedBuckets(t *testing.T, d *db.DB) Deltas {
	t.Helper()
	rs, err := d.SQL.Query(`SELECT company_id, grain, period, metric, queue_id, user_id, channel, n FROM dash_buckets`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	out := Deltas{}
	for rs.Next() {
		var k Key
		var n int64
		if err := rs.Scan(&k.Company, &k.Grain, &k.Period, &k.Metric, &k.Queue, &k.User, &k.Channel, &n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			out[k] = n
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func diff(t *testing.T, got, want Deltas) {
	t.Helper()
	bad := 0
	for k, n := range want {
		if got[k] != n && bad < 10 {
			t.Errorf("%+v: projection %d, recount %d", k, got[k], n)
			bad++
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok && bad < 10 {
			t.Errorf("%+v: projection %d, recount nothing", k, n)
			bad++
		}
	}
}

// tenantZones is the tenants' configured zones, changed by the tests as an admin's
// PUT /settings/timeZone would.
type tenantZones struct {
	mu sync.Mutex
	m  map[engine.ID]*time.Location // guarded by mu
}

func (z *tenantZones) set(c engine.ID, loc *time.Location) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.m[c] = loc
}

func (z *tenantZones) snapshot() map[engine.ID]*time.Location {
	z.mu.Lock()
	defer z.mu.Unlock()
	return maps.Clone(z.m)
}

func (z *tenantZones) zoneOf(_ context.Context, _ db.Querier, c engine.ID) (*time.Location, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if l := z.m[c]; l != nil {
		return l, nil
	}
	return nil, fmt.Errorf("tenant %d has no zone", c)
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// twoTenants creates tenants 1 and 2 with contacts 100..106 and 200..206.
func twoTenants(t *testing.T, d *db.DB) {
	t.Helper()
	dbtest.MustExec(t, d, `INSERT INTO companies (id, name) VALUES (1, 'Acme'), (2, 'Kaisha')`)
	for _, c := range []int{100, 101, 102, 103, 104, 105, 106, 200, 201, 202, 203, 204, 205, 206} {
		dbtest.MustExec(t, d, `INSERT INTO contacts (id, company_id, name, name_norm, search, created_at, updated_at)
			VALUES ($1, $2, 'c', 'c', 'c', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')`, c, c/100)
	}
}

// cluster is the setup of the projection's cluster cases: tenants 1 and 2 with a
// random history each, applied by the runners of two nodes.
type cluster struct {
	j     *journal.Store
	zones *tenantZones
	nodes [2]*Projection
	r     *rand.Rand
}

// newCluster creates tenants 1 and 2 (twoTenants) configured in zone1 and zone2,
// writes n1 and n2 random tickets of theirs (the random stream named stream, seeded
// by the clock and logged), starts two nodes' runners and waits until they applied
// everything and the buckets equal the recount.
func newCluster(t *testing.T, d *db.DB, zone1, zone2 *time.Location, stream uint64, n1, n2 int) *cluster {
	t.Helper()
	twoTenants(t, d)
	c := &cluster{zones: &tenantZones{m: map[engine.ID]*time.Location{1: zone1, 2: zone2}}}
	var err error
	if c.j, err = journal.New(d, journal.Config{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.j.Close() })
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	c.r = rand.New(rand.NewPCG(seed, stream))
	writeRandomJournal(t, c.j, c.r, 1, 0, n1)
	writeRandomJournal(t, c.j, c.r, 2, 1000, n2)
	c.nodes = startNodes(t, d, c.j, c.zones)
	waitAll(t, d, head(t, c.j))
	before, _ := recount(t, c.j, c.zones.snapshot())
	if len(before) == 0 {
		t.Fatal("the random history produced no counters")
	}
	diff(t, storedBuckets(t, d), before)
	return c
}

// startNodes starts two runners of the projections over d: the nodes of a cluster.
// It returns their dashboard projections.
func startNodes(t *testing.T, d *db.DB, j *journal.Store, zones *tenantZones) [2]*Projection {
	t.Helper()
	var out [2]*Projection
	for node := 0; node < 2; node++ {
		p, err := NewProjection(zones.zoneOf, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		out[node] = p
		run, err := projection.New(d, j, projection.Config{BatchSize: 7 + node*6, MinBackoff: time.Millisecond,
			MaxBackoff: 20 * time.Millisecond}, p, AppraisalProjection{})
		if err != nil {
			t.Fatal(err)
		}
		if err := run.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { run.Close() })
	}
	return out
}

func head(t *testing.T, j *journal.Store) int64 {
	t.Helper()
	h, err := j.Head(context.Background())
	if err != nil || h == 0 {
		t.Fatalf("journal head %d, %v", h, err)
	}
	return h
}

// checkQueries queries random ranges of company and compares them with the sum of the
// recount's days.
func checkQueries(t *testing.T, q *Queries, r *rand.Rand, company engine.ID, want Deltas) {
	t.Helper()
	ctx := context.Background()
	for k := 0; k < 25; k++ {
		from := time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(1300))
		to := from.AddDate(0, 0, r.IntN(900))
		got, err := q.Dashboard(ctx, company, engine.DashboardFilter{From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := DayNumber(from.Date()), DayNumber(to.Date())
		var opened, resolved, in, out, st, rs, rn int64
		for key, n := range want {
			if key.Company != company || key.Grain != GrainDay || key.Period < lo || key.Period > hi {
				continue
			}
			switch {
			case key.Metric == MetricOpened:
				opened += n
			case key.Metric == MetricResolved:
				resolved += n
			case key.Metric == MetricMessagesIn:
				in += n
			case key.Metric == MetricMessagesOut:
				out += n
			case key.Metric == MetricRateSum:
				rs += n
			case key.Metric == MetricRateCount:
				rn += n
			case len(key.Metric) > 3 && key.Metric[:3] == MetricStatusPrefix:
				st += n
			}
		}
		total := got.ByStatus[engine.StatusOpen] + got.ByStatus[engine.StatusPending] + got.ByStatus[engine.StatusClosed]
		if got.Opened != opened || got.Resolved != resolved || got.MessagesIn != in || got.MessagesOut != out ||
			total != st || got.Satisfaction.TotalSum != rs || got.Satisfaction.TotalCount != rn {
			t.Errorf("tenant %d %s..%s: query %d/%d/%d/%d status %d rate %d/%d; days say %d/%d/%d/%d status %d rate %d/%d",
				company, got.From, got.To, got.Opened, got.Resolved, got.MessagesIn, got.MessagesOut, total,
				got.Satisfaction.TotalSum, got.Satisfaction.TotalCount, opened, resolved, in, out, st, rs, rn)
		}
	}
}

// TestProjectionEqualsRecount is the property: after a random history of tickets of
// two tenants, one in Cuiabá's zone and one in Tokyo's, applied in small batches by
// two runners at once (two nodes sharing the database), every counter equals a
// recount from the journal in its tenant's zone, the contacts' appraisalData holds
// each rated ticket's answer once, and the query over random ranges equals the sum
// of the recount's days.
func TestProjectionEqualsRecount(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		c := newCluster(t, d, mustZone(t, DefaultZone), mustZone(t, "Asia/Tokyo"), 14, 80, 50)
		j, zones, nodes, r := c.j, c.zones, c.nodes, c.r

		want, appraisal := recount(t, j, zones.snapshot())

		rated := 0
		for _, c := range []engine.ID{100, 101, 102, 103, 104, 105, 106, 200, 201, 202, 203, 204, 205, 206} {
			var sum, n int
			if err := d.SQL.QueryRow(`SELECT appraisal_sum, appraisal_count FROM contacts WHERE id = $1`, c).Scan(&sum, &n); err != nil {
				t.Fatal(err)
			}
			if a := appraisal[c]; sum != a[0] || n != a[1] {
				t.Errorf("contact %d appraisal %d/%d, journal says %d/%d", c, sum, n, a[0], a[1])
			}
			rated += n
		}
		t.Logf("%d counters, %d answers", len(want), rated)

		q := NewQueries(d, nodes[0].BucketZone(d))
		checkQueries(t, q, r, 1, want)
		checkQueries(t, q, r, 2, want)
	})
}

// TestProjectionRezone changes tenant 2's zone from Cuiabá's to Tokyo's while both
// tenants keep writing tickets and both nodes ask for the rebuild at once: exactly one
// rebuilds, and afterwards tenant 2's counters equal a recount in Tokyo's zone while
// tenant 1's (untouched) still equal the recount in Cuiabá's; later events of tenant 2
// are folded in Tokyo's zone.
func TestProjectionRezone(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		cuiaba, tokyo := mustZone(t, DefaultZone), mustZone(t, "Asia/Tokyo")
		c := newCluster(t, d, cuiaba, cuiaba, 15, 40, 40)
		j, zones, nodes, r := c.j, c.zones, c.nodes, c.r

		zones.set(2, tokyo)
		// The first node to finish its re-fold outside the lock waits for the runners
		// to apply more of tenant 2's tickets (still in the old zone): the rebuild
		// must fold those too when it takes the lock.
		var once sync.Once
		rezoneRefolded = func() {
			once.Do(func() {
				writeRandomJournal(t, j, r, 2, 1300, 10)
				waitAll(t, d, head(t, j))
			})
		}
		t.Cleanup(func() { rezoneRefolded = nil })
		var g goroutine.Group
		var rebuilt atomic.Int32
		errs := make(chan error, 2)
		for _, p := range nodes {
			g.Go(func() {
				var err error
				defer func() { errs <- err }() // also when the hook's helpers stop the goroutine
				var done bool
				if done, err = p.Rezone(ctx, d, j, 2); done {
					rebuilt.Add(1)
				}
			})
		}
		g.Close()
		// Both tenants go on writing after the rebuild.
		writeRandomJournal(t, j, r, 1, 100, 20)
		writeRandomJournal(t, j, r, 2, 1100, 20)
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if n := rebuilt.Load(); n != 1 {
			t.Errorf("%d nodes rebuilt tenant 2, want exactly 1", n)
		}
		if done, err := nodes[0].Rezone(ctx, d, j, 2); err != nil || done {
			t.Errorf("a third rezone: rebuilt %v, %v; want nothing to do", done, err)
		}
		writeRandomJournal(t, j, r, 2, 1200, 10)
		waitAll(t, d, head(t, j))

		want, _ := recount(t, j, zones.snapshot())
		diff(t, storedBuckets(t, d), want)
		var zone string
		if err := d.SQL.QueryRow(`SELECT zone FROM dash_zones WHERE company_id = 2`).Scan(&zone); err != nil || zone != "Asia/Tokyo" {
			t.Errorf("dash_zones of tenant 2: %q, %v", zone, err)
		}
		q := NewQueries(d, nodes[1].BucketZone(d))
		checkQueries(t, q, r, 1, want)
		checkQueries(t, q, r, 2, want)

		// A rebuild to Lisbon overtaken by a change back to Tokyo (made while it
		// re-folds) gives way: the tenant stays in Tokyo's zone.
		zones.set(2, mustZone(t, "Europe/Lisbon"))
		rezoneRefolded = func() { zones.set(2, tokyo) }
		if done, err := nodes[0].Rezone(ctx, d, j, 2); err != nil || done {
			t.Errorf("overtaken rezone: rebuilt %v, %v; want nothing done", done, err)
		}
		if err := d.SQL.QueryRow(`SELECT zone FROM dash_zones WHERE company_id = 2`).Scan(&zone); err != nil || zone != "Asia/Tokyo" {
			t.Errorf("dash_zones of tenant 2 after an overtaken rezone: %q, %v", zone, err)
		}
		diff(t, storedBuckets(t, d), want)
	})
}

// waitAll polls until both projections' checkpoints reach last.
func waitAll(t *testing.T, d *db.DB, last int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var n int
		if err := d.SQL.QueryRow(`SELECT COUNT(*) FROM projection_checkpoints WHERE name IN ($1, $2) AND position >= $3`,
			ProjectionName, AppraisalProjectionName, last).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("projections did not reach position %d", last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCover checks that the runs of periods cover every day of random ranges once,
// with at most nine runs and at most 6+6 days at each edge (whole weeks are read as
// weeks), 24 day rows in all.
func TestCover(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 3000; k++ {
		from := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(4000))
		to := from.AddDate(0, 0, r.IntN([]int{3, 40, 400, 4000}[r.IntN(4)]))
		spans := Cover(from, to)
		if len(spans) > 9 {
			t.Fatalf("%v..%v: %d spans", from, to, len(spans))
		}
		seen := map[int]int{}
		days := 0
		for _, s := range spans {
			if s.Grain == GrainDay {
				if s.Hi-s.Lo+1 > 12 {
					t.Fatalf("%v..%v: a run of %d days (%v)", from, to, s.Hi-s.Lo+1, spans)
				}
				days += s.Hi - s.Lo + 1
			}
			for p := s.Lo; p <= s.Hi; p++ {
				switch s.Grain {
				case GrainDay:
					seen[p]++
				case GrainWeek:
					for d := WeekStart(p); d < WeekStart(p)+7; d++ {
						if wd := time.Unix(int64(d)*86400, 0).UTC().Weekday(); d == WeekStart(p) && wd != time.Monday {
							t.Fatalf("week %d starts on a %v", p, wd)
						}
						seen[d]++
					}
				case GrainMonth:
					first := time.Date(p/12, time.Month(p%12+1), 1, 0, 0, 0, 0, time.UTC)
					for d := first; d.Month() == first.Month(); d = d.AddDate(0, 0, 1) {
						seen[DayNumber(d.Date())]++
					}
				case GrainYear:
					for d := time.Date(p, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() == p; d = d.AddDate(0, 0, 1) {
						seen[DayNumber(d.Date())]++
					}
				}
			}
		}
		if days > 24 {
			t.Fatalf("%v..%v: %d day rows (%v)", from, to, days, spans)
		}
		lo, hi := DayNumber(from.Date()), DayNumber(to.Date())
		if len(seen) != hi-lo+1 {
			t.Fatalf("%v..%v: covers %d days, want %d (%v)", from, to, len(seen), hi-lo+1, spans)
		}
		for dn, c := range seen {
			if c != 1 || dn < lo || dn > hi {
				t.Fatalf("%v..%v: day %d counted %d times (%v)", from, to, dn, c, spans)
			}
		}
	}
}
