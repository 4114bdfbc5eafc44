package dashboard

import (
	"math"
	"sort"
	"strconv"
	"time"

	"atende/engine"
)

// Metric names of dash_buckets. The status metrics count tickets by the day they
// opened and where they are now (a move takes one from a cell and gives it to
// another); the others count what happened on a day.
const (
	MetricOpened      = "opened"   // tickets opened, by queue
	MetricResolved    = "resolved" // resolutions, by queue
	MetricMessagesIn  = "msg_in"   // customer messages, by queue
	MetricMessagesOut = "msg_out"  // our messages (automatic ones too), by queue
	MetricRateSum     = "rate_sum" // sum of satisfaction answers, by queue and attendant
	MetricRateCount   = "rate_n"   // number of satisfaction answers, by queue and attendant
	// MetricStatusPrefix + status: tickets opened that day, by their current status,
	// queue, attendant and channel.
	MetricStatusPrefix = "st:"
	// Latency histograms by queue: a sample falls in bucket i (see Bucket) and adds one
	// to metric prefix + two-digit i.
	MetricFirstResponsePrefix = "fr:"
	MetricResolutionPrefix    = "rs:"
)

// Histogram buckets. Bucket 0 holds samples under one second; bucket i ≥ 1 holds
// [g^(i-1), g^i) seconds with g = 1.25, so a reported quantile (the bucket's geometric
// middle) is within about 12% of the true one. The last bucket holds everything above
// (g^98 s is centuries).
const (
	bucketGrowth = 1.25
	Buckets      = 100
)

// bucketUpper[i] is the exclusive upper bound of bucket i, in seconds.
var bucketUpper = func() [Buckets]float64 {
	var u [Buckets]float64
	for i := range u {
		u[i] = math.Pow(bucketGrowth, float64(i))
	}
	u[Buckets-1] = math.Inf(1)
	return u
}()

// Bucket gives the histogram bucket of a latency (negative ones, from clock skew
// between nodes, count as zero).
func Bucket(d time.Duration) int {
	s := d.Seconds()
	return sort.Search(Buckets-1, func(i int) bool { return s < bucketUpper[i] })
}

// BucketValue is the value, in seconds, a quantile falling in bucket i reports: the
// geometric middle of its bounds (0.5 s for bucket 0).
func BucketValue(i int) float64 {
	if i <= 0 {
		return 0.5
	}
	if i >= Buckets-1 {
		return bucketUpper[Buckets-2]
	}
	return math.Sqrt(bucketUpper[i-1] * bucketUpper[i])
}

func bucketMetric(prefix string, i int) string {
	if i < 10 {
		return prefix + "0" + strconv.Itoa(i)
	}
	return prefix + strconv.Itoa(i)
}

// Grains of dash_buckets.
const (
	GrainDay   = "d"
	GrainWeek  = "w" // ISO weeks (Monday to Sunday); the period is WeekNumber of a day
	GrainMonth = "m"
	GrainYear  = "y"
)

// Key is one counter of dash_buckets.
type Key struct {
	Company engine.ID
	Grain   string
	Period  int
	Metric  string
	Queue   engine.ID
	User    engine.ID
	Channel string
}

// Deltas are counter changes, summed by key.
type Deltas map[Key]int64

// Ticket is what the fold keeps of a ticket (a row of dash_tickets).
type Ticket struct {
	ID        engine.ID
	Company   engine.ID
	OpenedAt  time.Time
	CycleAt   time.Time // opening or last reopening: resolution time runs from it
	Status    string    // "" until the ticket.opened is folded
	Queue     engine.ID
	User      engine.ID
	Channel   string
	Responded bool // an attendant sent a message
	Deleted   bool
	Version   int64
}

// Folder turns ticket events into counter deltas. Periods are calendar days, ISO
// weeks, months and years in each tenant's zone: Zones[company], Loc for a tenant
// missing there. It is pure computation: the projection feeds it the rows it loaded,
// the benchmark feeds it synthetic tickets.
type Folder struct {
	Loc    *time.Location
	Zones  map[engine.ID]*time.Location
	Deltas Deltas
}

func (f *Folder) zone(company engine.ID) *time.Location {
	if l := f.Zones[company]; l != nil {
		return l
	}
	return f.Loc
}

// NewFolder returns a Folder with empty deltas.
func NewFolder(loc *time.Location) *Folder {
	return &Folder{Loc: loc, Deltas: Deltas{}}
}

// Periods gives the day, month and year numbers of t in loc.
func Periods(t time.Time, loc *time.Location) (day, month, year int) {
	y, m, d := t.In(loc).Date()
	return DayNumber(y, m, d), y*12 + int(m) - 1, y
}

// WeekNumber is the number of the ISO week (Monday to Sunday) holding day number dn:
// week 0 runs from Monday 1969-12-29 to Sunday 1970-01-04.
func WeekNumber(dn int) int {
	n := dn + 3
	if n < 0 {
		return (n - 6) / 7
	}
	return n / 7
}

// WeekStart is the day number of the Monday of week w.
func WeekStart(w int) int { return w*7 - 3 }

// DayNumber is the number of the calendar date y-m-d counted from 1970-01-01.
func DayNumber(y int, m time.Month, d int) int {
	return int(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// add changes a counter at the four grains of the period of at.
func (f *Folder) add(company engine.ID, at time.Time, metric string, queue, user engine.ID, channel string, n int64) {
	if n == 0 {
		return
	}
	d, m, y := Periods(at, f.zone(company))
	for _, g := range [...]struct {
		grain  string
		period int
	}{{GrainDay, d}, {GrainWeek, WeekNumber(d)}, {GrainMonth, m}, {GrainYear, y}} {
		k := Key{Company: company, Grain: g.grain, Period: g.period, Metric: metric, Queue: queue, User: user, Channel: channel}
		if v := f.Deltas[k] + n; v != 0 {
			f.Deltas[k] = v
		} else {
			delete(f.Deltas, k)
		}
	}
}

// cell moves the ticket in or out (n = ±1) of its status cell.
func (f *Folder) cell(t *Ticket, n int64) {
	if t.Status == "" || t.Deleted {
		return
	}
	f.add(t.Company, t.OpenedAt, MetricStatusPrefix+t.Status, t.Queue, t.User, t.Channel, n)
}

// Fold applies one event of version v to t (whose ID is set) and records its deltas.
// An event at or below t.Version was folded before and is skipped; so is everything
// of a ticket whose opening was not seen. company is the journal's tenant of the event.
func (f *Folder) Fold(t *Ticket, company engine.ID, v int64, ev engine.TicketEvent) {
	if v <= t.Version {
		return
	}
	t.Version = v
	if _, ok := ev.(engine.TicketOpened); !ok && (t.Status == "" || t.Deleted) {
		return
	}
	at := ev.OccurredAt()
	switch e := ev.(type) {
	case engine.TicketOpened:
		f.cell(t, -1) // a second opening (never written) replaces the first
		*t = Ticket{ID: t.ID, Company: e.CompanyID, OpenedAt: e.At, CycleAt: e.At, Status: e.Status,
			Queue: e.QueueID, User: e.UserID, Channel: e.Channel, Version: v}
		if t.Company == 0 {
			t.Company = company
		}
		f.add(t.Company, at, MetricOpened, t.Queue, 0, "", 1)
		f.cell(t, 1)
	case engine.TicketAccepted:
		f.move(t, engine.StatusOpen, e.UserID, t.Queue)
	case engine.TicketResolved:
		f.add(t.Company, at, MetricResolved, t.Queue, 0, "", 1)
		f.add(t.Company, at, bucketMetric(MetricResolutionPrefix, Bucket(at.Sub(t.CycleAt))), t.Queue, 0, "", 1)
		f.move(t, engine.StatusClosed, t.User, t.Queue)
	case engine.TicketReturned:
		f.move(t, engine.StatusPending, 0, t.Queue)
	case engine.TicketReopened:
		t.CycleAt = at
		f.move(t, engine.StatusOpen, e.ToUserID, t.Queue)
	case engine.TicketTransferred:
		f.move(t, e.ToStatus, e.ToUserID, e.ToQueueID)
	case engine.TicketDeleted:
		f.cell(t, -1)
		t.Deleted = true
	case engine.TicketMessageReceived:
		f.add(t.Company, at, MetricMessagesIn, t.Queue, 0, "", 1)
	case engine.TicketMessageSent:
		f.add(t.Company, at, MetricMessagesOut, t.Queue, 0, "", 1)
		if !t.Responded && !e.Automatic && e.SenderID != 0 {
			t.Responded = true
			f.add(t.Company, at, bucketMetric(MetricFirstResponsePrefix, Bucket(at.Sub(t.OpenedAt))), t.Queue, 0, "", 1)
		}
	case engine.TicketRated:
		f.add(t.Company, at, MetricRateSum, e.QueueID, e.UserID, "", int64(e.Score))
		f.add(t.Company, at, MetricRateCount, e.QueueID, e.UserID, "", 1)
	}
}

// move puts the ticket in another status cell.
func (f *Folder) move(t *Ticket, status string, user, queue engine.ID) {
	if status == t.Status && user == t.User && queue == t.Queue {
		return
	}
	f.cell(t, -1)
	t.Status, t.User, t.Queue = status, user, queue
	f.cell(t, 1)
}
