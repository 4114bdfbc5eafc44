package dashboard

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// Queries answers engine.DashboardQueries from dash_buckets and the contacts'
// opportunities.
type Queries struct {
	// static after construction
	d     *db.DB
	zones ZoneFunc
}

// NewQueries reads d; zones gives the zone of a tenant's buckets (in cmd/atende,
// Projection.BucketZone): the range's dates are days of that zone.
func NewQueries(d *db.DB, zones ZoneFunc) *Queries {
	return &Queries{d: d, zones: zones}
}

// Span is a run of periods of one grain, Lo to Hi inclusive.
type Span struct {
	Grain  string
	Lo, Hi int
}

// Cover splits the calendar days from..to (inclusive, as dates) into runs of whole
// years, whole months, whole ISO weeks and days: years in the middle, months around
// them, and each of the (at most two) runs of days left at the edges split into at
// most six leading days, whole weeks and at most six trailing days. That is at most
// nine runs and 24 day rows per metric, whatever the length of the range.
func Cover(from, to time.Time) []Span {
	var out []Span
	for _, s := range coverMonths(from, to) {
		if s.Grain != GrainDay {
			out = append(out, s)
			continue
		}
		out = append(out, splitWeeks(s.Lo, s.Hi)...)
	}
	return out
}

// splitWeeks covers days lo..hi with leading days, whole weeks and trailing days.
func splitWeeks(lo, hi int) []Span {
	wlo := WeekNumber(lo)
	if WeekStart(wlo) != lo {
		wlo++
	}
	whi := WeekNumber(hi)
	if WeekStart(whi)+6 != hi {
		whi--
	}
	if wlo > whi {
		return []Span{{GrainDay, lo, hi}}
	}
	var out []Span
	if first := WeekStart(wlo); first > lo {
		out = append(out, Span{GrainDay, lo, first - 1})
	}
	out = append(out, Span{GrainWeek, wlo, whi})
	if last := WeekStart(whi) + 6; last < hi {
		out = append(out, Span{GrainDay, last + 1, hi})
	}
	return out
}

// coverMonths splits the days from..to into runs of whole years, whole months and
// days: at most two runs of days, two of months and one of years.
func coverMonths(from, to time.Time) []Span {
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	cur, end := day(from), day(to)
	dn := func(t time.Time) int { return DayNumber(t.Year(), t.Month(), t.Day()) }
	mi := func(t time.Time) int { return t.Year()*12 + int(t.Month()) - 1 }
	var out []Span
	push := func(g string, lo, hi int) {
		if n := len(out); n > 0 && out[n-1].Grain == g && out[n-1].Hi+1 == lo {
			out[n-1].Hi = hi
			return
		}
		out = append(out, Span{g, lo, hi})
	}
	for !cur.After(end) {
		monthEnd := cur.AddDate(0, 1, -cur.Day()+1).AddDate(0, 0, -1) // last day of cur's month
		switch {
		case cur.Month() == time.January && cur.Day() == 1 && !time.Date(cur.Year(), 12, 31, 0, 0, 0, 0, time.UTC).After(end):
			y := cur.Year()
			for !time.Date(y+1, 12, 31, 0, 0, 0, 0, time.UTC).After(end) {
				y++
			}
			push(GrainYear, cur.Year(), y)
			cur = time.Date(y+1, 1, 1, 0, 0, 0, 0, time.UTC)
		case cur.Day() == 1 && !monthEnd.After(end):
			push(GrainMonth, mi(cur), mi(cur))
			cur = monthEnd.AddDate(0, 0, 1)
		default:
			last := monthEnd
			if last.After(end) {
				last = end
			}
			push(GrainDay, dn(cur), dn(last))
			cur = last.AddDate(0, 0, 1)
		}
	}
	return out
}

type row struct {
	metric  string
	queue   engine.ID
	user    engine.ID
	channel string
	n       int64
}

// Dashboard implements engine.DashboardQueries.
func (q *Queries) Dashboard(ctx context.Context, companyID engine.ID, f engine.DashboardFilter) (engine.Dashboard, error) {
	if err := engine.ValidateDashboardFilter(f); err != nil {
		return engine.Dashboard{}, err
	}
	from := time.Date(f.From.Year(), f.From.Month(), f.From.Day(), 0, 0, 0, 0, time.UTC)
	to := time.Date(f.To.Year(), f.To.Month(), f.To.Day(), 0, 0, 0, 0, time.UTC)
	out := engine.Dashboard{From: from.Format(time.DateOnly), To: to.Format(time.DateOnly),
		ByStatus: map[string]int64{engine.StatusOpen: 0, engine.StatusPending: 0, engine.StatusClosed: 0},
		ByQueue:  []engine.DashboardCount{}, ByUser: []engine.DashboardCount{}, ByChannel: []engine.DashboardCount{},
		SatisfactionByUser: []engine.DashboardSatisfaction{}, SatisfactionByQ: []engine.DashboardSatisfaction{},
		Series: []engine.DashboardDay{}}

	// One query per run of periods: each is a range of the primary key, which an OR of
	// the runs would not be for SQLite's planner.
	var rows []row
	for _, span := range Cover(from, to) {
		args := []any{companyID, span.Grain, span.Lo, span.Hi}
		queueCond := ""
		if len(f.QueueIDs) > 0 {
			ph := make([]string, len(f.QueueIDs))
			for i, id := range f.QueueIDs {
				args = append(args, id)
				ph[i] = "$" + strconv.Itoa(len(args))
			}
			queueCond = " AND queue_id IN (" + strings.Join(ph, ",") + ")"
		}
		part, err := q.sum(ctx, `SELECT metric, queue_id, user_id, channel, SUM(n) FROM dash_buckets
			WHERE company_id = $1 AND grain = $2 AND period BETWEEN $3 AND $4`+queueCond+`
			GROUP BY metric, queue_id, user_id, channel`, args...)
		if err != nil {
			return out, err
		}
		rows = append(rows, part...)
	}
	fold(&out, rows)

	if err := q.series(ctx, &out, companyID, from, to, f.QueueIDs); err != nil {
		return out, err
	}
	loc, err := q.zones(ctx, q.d.SQL, companyID)
	if err != nil {
		return out, err
	}
	if out.Opportunities, err = q.opportunities(ctx, companyID, from, to, loc); err != nil {
		return out, err
	}
	return out, nil
}

func (q *Queries) sum(ctx context.Context, query string, args ...any) ([]row, error) {
	rs, err := q.d.SQL.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.metric, &r.queue, &r.user, &r.channel, &r.n); err != nil {
			return nil, fmt.Errorf("dashboard: %w", err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	return out, nil
}

// fold turns summed counters into the answer.
func fold(out *engine.Dashboard, rows []row) {
	byQueue, byUser, byChannel := map[engine.ID]int64{}, map[engine.ID]int64{}, map[string]int64{}
	var first, resolution [Buckets]int64
	type sums struct{ sum, n int64 }
	rateUser, rateQueue := map[engine.ID]*sums{}, map[engine.ID]*sums{}
	var rate sums
	at := func(m map[engine.ID]*sums, id engine.ID) *sums {
		if m[id] == nil {
			m[id] = &sums{}
		}
		return m[id]
	}
	for _, r := range rows {
		switch {
		case strings.HasPrefix(r.metric, MetricStatusPrefix):
			out.ByStatus[strings.TrimPrefix(r.metric, MetricStatusPrefix)] += r.n
			byQueue[r.queue] += r.n
			byUser[r.user] += r.n
			byChannel[r.channel] += r.n
		case strings.HasPrefix(r.metric, MetricFirstResponsePrefix):
			if i, err := strconv.Atoi(strings.TrimPrefix(r.metric, MetricFirstResponsePrefix)); err == nil && i >= 0 && i < Buckets {
				first[i] += r.n
			}
		case strings.HasPrefix(r.metric, MetricResolutionPrefix):
			if i, err := strconv.Atoi(strings.TrimPrefix(r.metric, MetricResolutionPrefix)); err == nil && i >= 0 && i < Buckets {
				resolution[i] += r.n
			}
		case r.metric == MetricOpened:
			out.Opened += r.n
		case r.metric == MetricResolved:
			out.Resolved += r.n
		case r.metric == MetricMessagesIn:
			out.MessagesIn += r.n
		case r.metric == MetricMessagesOut:
			out.MessagesOut += r.n
		case r.metric == MetricRateSum:
			rate.sum += r.n
			at(rateUser, r.user).sum += r.n
			at(rateQueue, r.queue).sum += r.n
		case r.metric == MetricRateCount:
			rate.n += r.n
			at(rateUser, r.user).n += r.n
			at(rateQueue, r.queue).n += r.n
		}
	}
	out.ByQueue = idCounts(byQueue)
	out.ByUser = idCounts(byUser)
	for k, n := range byChannel {
		if n != 0 {
			out.ByChannel = append(out.ByChannel, engine.DashboardCount{Key: k, N: n})
		}
	}
	sort.Slice(out.ByChannel, func(i, j int) bool { return out.ByChannel[i].Key < out.ByChannel[j].Key })
	out.FirstResponse = Latency(first[:])
	out.Resolution = Latency(resolution[:])
	out.Satisfaction = engine.NewDashboardSatisfaction(0, rate.sum, rate.n)
	for _, m := range []struct {
		src map[engine.ID]*sums
		dst *[]engine.DashboardSatisfaction
	}{{rateUser, &out.SatisfactionByUser}, {rateQueue, &out.SatisfactionByQ}} {
		for id, s := range m.src {
			if s.n > 0 {
				*m.dst = append(*m.dst, engine.NewDashboardSatisfaction(id, s.sum, s.n))
			}
		}
		sort.Slice(*m.dst, func(i, j int) bool { return (*m.dst)[i].ID < (*m.dst)[j].ID })
	}
}

func idCounts(m map[engine.ID]int64) []engine.DashboardCount {
	out := []engine.DashboardCount{}
	for id, n := range m {
		if n != 0 {
			out = append(out, engine.DashboardCount{ID: id, N: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Latency summarises a histogram: the median and 90th percentile are the values of
// the buckets holding the ceil(0.5·n)-th and ceil(0.9·n)-th samples.
func Latency(h []int64) engine.DashboardLatency {
	var n int64
	for _, c := range h {
		n += c
	}
	out := engine.DashboardLatency{Count: n}
	if n == 0 {
		return out
	}
	rank := func(q float64) float64 {
		target := int64(q*float64(n) + 0.999999)
		if target < 1 {
			target = 1
		}
		var seen int64
		for i, c := range h {
			seen += c
			if seen >= target {
				return BucketValue(i)
			}
		}
		return BucketValue(len(h) - 1)
	}
	out.Median, out.P90 = rank(0.5), rank(0.9)
	return out
}

// series fills the series: one point per day for a range of at most
// engine.DashboardSeriesDays days, else one per month (the last
// engine.DashboardSeriesMonths months of the range; the first and last months count
// whole). Points read the rows of four metrics found through dash_buckets_series
// (which leaves the count out, so that increments are HOT updates on PostgreSQL).
func (q *Queries) series(ctx context.Context, out *engine.Dashboard, companyID engine.ID, from, to time.Time, queues []engine.ID) error {
	grain := GrainDay
	lo := DayNumber(from.Year(), from.Month(), from.Day())
	hi := DayNumber(to.Year(), to.Month(), to.Day())
	label := func(p int) string { return time.Unix(int64(p)*86400, 0).UTC().Format(time.DateOnly) }
	if hi-lo >= engine.DashboardSeriesDays {
		grain = GrainMonth
		lo, hi = from.Year()*12+int(from.Month())-1, to.Year()*12+int(to.Month())-1
		lo = max(lo, hi-engine.DashboardSeriesMonths+1)
		label = func(p int) string { return fmt.Sprintf("%04d-%02d", p/12, p%12+1) }
	}
	args := []any{companyID, grain, lo, hi, MetricOpened, MetricResolved, MetricMessagesIn, MetricMessagesOut}
	queueCond := ""
	if len(queues) > 0 {
		ph := make([]string, len(queues))
		for i, id := range queues {
			args = append(args, id)
			ph[i] = "$" + strconv.Itoa(len(args))
		}
		queueCond = " AND queue_id IN (" + strings.Join(ph, ",") + ")"
	}
	rs, err := q.d.SQL.QueryContext(ctx, `SELECT period, metric, SUM(n) FROM dash_buckets
		WHERE company_id = $1 AND grain = $2 AND metric IN ($5, $6, $7, $8) AND period BETWEEN $3 AND $4`+queueCond+`
		GROUP BY period, metric`, args...)
	if err != nil {
		return fmt.Errorf("dashboard series: %w", err)
	}
	defer rs.Close()
	points := map[int]*engine.DashboardDay{}
	for rs.Next() {
		var period int
		var metric string
		var n int64
		if err := rs.Scan(&period, &metric, &n); err != nil {
			return fmt.Errorf("dashboard series: %w", err)
		}
		d := points[period]
		if d == nil {
			d = &engine.DashboardDay{Date: label(period)}
			points[period] = d
		}
		switch metric {
		case MetricOpened:
			d.Opened += n
		case MetricResolved:
			d.Resolved += n
		case MetricMessagesIn:
			d.MessagesIn += n
		case MetricMessagesOut:
			d.MessagesOut += n
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("dashboard series: %w", err)
	}
	// Every point of the window, empty ones included, so the chart's axis is even.
	for p := lo; p <= hi; p++ {
		d := points[p]
		if d == nil {
			d = &engine.DashboardDay{Date: label(p)}
		}
		out.Series = append(out.Series, *d)
	}
	return nil
}

// opportunities sums the tenant's sales opportunities: those won or lost in the range
// (by their closing time, in the zone of the tenant's buckets) and every open one. Values are the
// text typed on the contact ("R$ 1.200,00"); ParseMoney reads them.
func (q *Queries) opportunities(ctx context.Context, companyID engine.ID, from, to time.Time, loc *time.Location) (engine.DashboardOpportunities, error) {
	var out engine.DashboardOpportunities
	start := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, loc).UTC()
	end := time.Date(to.Year(), to.Month(), to.Day(), 0, 0, 0, 0, loc).AddDate(0, 0, 1).UTC()
	var lo, hi any = start, end
	if q.d.Dialect == db.SQLite {
		// SQLite keeps times as fixed-width UTC text, which sorts in time order.
		lo, hi = start.Format("2006-01-02T15:04:05.000000Z"), end.Format("2006-01-02T15:04:05.000000Z")
	}
	rs, err := q.d.SQL.QueryContext(ctx, `SELECT closing_status, value, COUNT(*) FROM contact_sales_opps
		WHERE company_id = $1 AND (closing_status IS NULL OR (closed_at >= $2 AND closed_at < $3))
		GROUP BY closing_status, value`, companyID, lo, hi)
	if err != nil {
		return out, fmt.Errorf("dashboard opportunities: %w", err)
	}
	defer rs.Close()
	for rs.Next() {
		var status sql.NullInt64
		var value string
		var n int64
		if err := rs.Scan(&status, &value, &n); err != nil {
			return out, fmt.Errorf("dashboard opportunities: %w", err)
		}
		m := &out.Open
		switch {
		case !status.Valid:
		case status.Int64 == engine.OppWon:
			m = &out.Won
		default:
			m = &out.Lost
		}
		cents, _ := ParseMoney(value)
		m.Count += n
		m.Cents += cents * n
	}
	return out, rs.Err()
}
