package engine

import (
	"context"
	"time"
)

// DashboardQueries answers the dashboard (/tableaux) from the dashboard projection
// (persistence/dashboard): sums of per-period buckets, never a scan of tickets, so a
// ten-year range costs about what a day does. Every number is of one company.
type DashboardQueries interface {
	Dashboard(ctx context.Context, companyID ID, f DashboardFilter) (Dashboard, error)
}

// DashboardFilter selects the days (From and To inclusive, calendar days in the
// dashboard's time zone) and, when QueueIDs is not empty, the queues (0 names "no
// queue"). ValidateDashboardFilter checks it.
type DashboardFilter struct {
	From, To time.Time // dates only; their clock is ignored
	QueueIDs []ID
}

// DashboardMaxDays bounds a filter's range: a little over 100 years, far beyond any
// contact centre's history, so a mistyped year is refused rather than summed.
const DashboardMaxDays = 36600

// DashboardMaxQueues bounds how many queues a filter may name.
const DashboardMaxQueues = 200

// ValidateDashboardFilter refuses a range that ends before it starts, spans more than
// DashboardMaxDays, or names too many or negative queue ids (ERR_VALIDATION with the
// field).
func ValidateDashboardFilter(f DashboardFilter) error {
	fe := fieldErrors{}
	switch {
	case f.From.IsZero():
		fe.add("dateFrom", MsgRequired)
	case f.To.IsZero():
		fe.add("dateTo", MsgRequired)
	case f.To.Before(f.From):
		fe.add("dateTo", MsgInvalidValue)
	case f.To.Sub(f.From) > DashboardMaxDays*24*time.Hour:
		fe.add("dateTo", MsgTooLong)
	}
	if len(f.QueueIDs) > DashboardMaxQueues {
		fe.add("queueIds", MsgTooLong)
	}
	for _, q := range f.QueueIDs {
		if q < 0 {
			fe.add("queueIds", MsgInvalidValue)
			break
		}
	}
	return fe.err()
}

// Dashboard is the answer of GET /dashboard.
type Dashboard struct {
	From string `json:"from"` // YYYY-MM-DD
	To   string `json:"to"`
	// Tickets opened in the range, by their current status, queue, attendant and
	// channel (a deleted ticket no longer counts).
	ByStatus  map[string]int64 `json:"byStatus"`
	ByQueue   []DashboardCount `json:"byQueue"`
	ByUser    []DashboardCount `json:"byUser"`
	ByChannel []DashboardCount `json:"byChannel"`
	// What happened in the range: tickets opened and resolved, messages received from
	// customers and sent to them (automatic ones included; internal notes not).
	Opened      int64 `json:"opened"`
	Resolved    int64 `json:"resolved"`
	MessagesIn  int64 `json:"messagesIn"`
	MessagesOut int64 `json:"messagesOut"`
	// First response (ticket opened → first message an attendant typed) and resolution
	// (ticket opened or reopened → resolved) times, in seconds.
	FirstResponse DashboardLatency `json:"firstResponse"`
	Resolution    DashboardLatency `json:"resolution"`
	// Satisfaction answers given in the range: overall, per attendant and per queue.
	Satisfaction       DashboardSatisfaction   `json:"satisfaction"`
	SatisfactionByUser []DashboardSatisfaction `json:"satisfactionByUser"`
	SatisfactionByQ    []DashboardSatisfaction `json:"satisfactionByQueue"`
	// Sales opportunities: won and lost are those closed in the range; open are all
	// still open (they have no date). Values in cents of the currency typed.
	Opportunities DashboardOpportunities `json:"opportunities"`
	// The series over the range: per day (Date YYYY-MM-DD) for a range of at most
	// DashboardSeriesDays days, else per month (Date YYYY-MM; the last
	// DashboardSeriesMonths months).
	Series []DashboardDay `json:"series"`
}

// DashboardSeriesDays is the longest range whose series is daily; DashboardSeriesMonths
// bounds a monthly series.
const (
	DashboardSeriesDays   = 62
	DashboardSeriesMonths = 120
)

// DashboardCount is one group of a breakdown: ID is a queue or user id (0: none) or
// Key a channel name.
type DashboardCount struct {
	ID  ID     `json:"id,omitempty"`
	Key string `json:"key,omitempty"`
	N   int64  `json:"n"`
}

// DashboardLatency summarises a latency histogram: Count samples, their median and
// 90th percentile in seconds (each within the histogram's bucket precision).
type DashboardLatency struct {
	Count  int64   `json:"count"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
}

// DashboardSatisfaction is a sum of answers (1 to 3) with the spec's score and icon
// (SatisfactionScore); ID is the attendant or queue it groups, 0 for the total.
type DashboardSatisfaction struct {
	ID         ID      `json:"id,omitempty"`
	TotalSum   int64   `json:"totalsum"`
	TotalCount int64   `json:"totalcount"`
	Score      float64 `json:"score"`
	Icon       int     `json:"icon"`
}

// NewDashboardSatisfaction fills Score and Icon from the sums.
func NewDashboardSatisfaction(id ID, sum, count int64) DashboardSatisfaction {
	score, icon := SatisfactionScore(AppraisalData{TotalSum: int(sum), TotalCount: int(count)})
	return DashboardSatisfaction{ID: id, TotalSum: sum, TotalCount: count, Score: score, Icon: icon}
}

// DashboardOpportunities counts sales opportunities with their summed values.
type DashboardOpportunities struct {
	Won  DashboardMoney `json:"won"`
	Lost DashboardMoney `json:"lost"`
	Open DashboardMoney `json:"open"`
}

// DashboardMoney is a count and a sum in cents.
type DashboardMoney struct {
	Count int64 `json:"count"`
	Cents int64 `json:"cents"`
}

// DashboardDay is one point of the series: a day or a month.
type DashboardDay struct {
	Date        string `json:"date"`
	Opened      int64  `json:"opened"`
	Resolved    int64  `json:"resolved"`
	MessagesIn  int64  `json:"messagesIn"`
	MessagesOut int64  `json:"messagesOut"`
}
