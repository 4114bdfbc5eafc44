package httpapi

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"atende/engine"
)

// dashboardRoutes registers the dashboard (/tableaux): its numbers as JSON and as a
// CSV file. Both need dashboard:view (superv and upward).
func (s *Server) dashboardRoutes() {
	wired := s.deps.Dashboard != nil
	s.refRoute("GET /dashboard", wired, s.dashboard)
	s.refRoute("GET /dashboard/export", wired, s.dashboardCSV)
}

// dashboardFilter reads ?dateFrom=YYYY-MM-DD&dateTo=YYYY-MM-DD&queueIds=[1,2]. Both
// dates are required (ERR_VALIDATION {dateFrom|dateTo: "Required"}); a date that is
// not a calendar date is {field: "Invalid value"}.
func dashboardFilter(r *http.Request) (engine.DashboardFilter, error) {
	var f engine.DashboardFilter
	for _, d := range []struct {
		name string
		dst  *time.Time
	}{{"dateFrom", &f.From}, {"dateTo", &f.To}} {
		raw := queryString(r, d.name)
		if raw == "" {
			return f, fieldError(d.name, engine.MsgRequired)
		}
		t, err := time.Parse(time.DateOnly, raw)
		if err != nil {
			return f, fieldError(d.name, engine.MsgInvalidValue)
		}
		*d.dst = t
	}
	ids, err := parseIDList(queryString(r, "queueIds"), "queueIds", engine.DashboardMaxQueues)
	if err != nil {
		return f, err
	}
	f.QueueIDs = ids
	return f, engine.ValidateDashboardFilter(f)
}

// dashboard answers GET /dashboard with an engine.Dashboard of the caller's tenant.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewDashboard); err != nil {
		return err
	}
	f, err := dashboardFilter(r)
	if err != nil {
		return err
	}
	out, err := s.deps.Dashboard.Dashboard(r.Context(), p.CompanyID, f)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
	return nil
}

// dashboardCSV answers GET /dashboard/export: the same numbers as a CSV file
// (section, id, name, value), queue and attendant names included.
func (s *Server) dashboardCSV(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewDashboard); err != nil {
		return err
	}
	f, err := dashboardFilter(r)
	if err != nil {
		return err
	}
	d, err := s.deps.Dashboard.Dashboard(r.Context(), p.CompanyID, f)
	if err != nil {
		return err
	}
	queues, users := map[engine.ID]string{}, map[engine.ID]string{}
	if s.deps.Queues != nil {
		qs, err := s.deps.Queues.List(r.Context(), p.CompanyID)
		if err != nil {
			return fmt.Errorf("dashboard export: queues: %w", err)
		}
		for _, q := range qs {
			queues[q.ID] = q.Name
		}
	}
	if s.deps.Users != nil {
		us, _, err := s.deps.Users.List(r.Context(), p.CompanyID, engine.UserFilter{Limit: 100_000})
		if err != nil {
			return fmt.Errorf("dashboard export: users: %w", err)
		}
		for _, u := range us {
			users[u.ID] = u.Name
		}
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="dashboard-`+d.From+`-`+d.To+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	WriteDashboardCSV(cw, d, queues, users)
	cw.Flush()
	return nil
}

// WriteDashboardCSV writes d as rows of section, id, name, value. Names are cells a
// spreadsheet must not run as formulas: one starting with = + - @ or a control
// character is prefixed with an apostrophe.
func WriteDashboardCSV(cw *csv.Writer, d engine.Dashboard, queues, users map[engine.ID]string) {
	num := func(n int64) string { return strconv.FormatInt(n, 10) }
	flt := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	row := func(section string, id engine.ID, name, value string) {
		ids := ""
		if id != 0 {
			ids = num(id)
		}
		_ = cw.Write([]string{section, ids, safeCell(name), value})
	}
	_ = cw.Write([]string{"section", "id", "name", "value"})
	row("range", 0, d.From, d.To)
	for _, st := range []string{engine.StatusOpen, engine.StatusPending, engine.StatusClosed} {
		row("tickets_by_status", 0, st, num(d.ByStatus[st]))
	}
	for _, c := range d.ByQueue {
		row("tickets_by_queue", c.ID, queues[c.ID], num(c.N))
	}
	for _, c := range d.ByUser {
		row("tickets_by_user", c.ID, users[c.ID], num(c.N))
	}
	for _, c := range d.ByChannel {
		row("tickets_by_channel", 0, c.Key, num(c.N))
	}
	row("opened", 0, "", num(d.Opened))
	row("resolved", 0, "", num(d.Resolved))
	row("messages_in", 0, "", num(d.MessagesIn))
	row("messages_out", 0, "", num(d.MessagesOut))
	for _, l := range []struct {
		name string
		v    engine.DashboardLatency
	}{{"first_response", d.FirstResponse}, {"resolution", d.Resolution}} {
		row(l.name+"_count", 0, "", num(l.v.Count))
		row(l.name+"_median_seconds", 0, "", flt(l.v.Median))
		row(l.name+"_p90_seconds", 0, "", flt(l.v.P90))
	}
	row("satisfaction", 0, "", flt(d.Satisfaction.Score))
	for _, sat := range d.SatisfactionByUser {
		row("satisfaction_by_user", sat.ID, users[sat.ID], flt(sat.Score))
	}
	for _, sat := range d.SatisfactionByQ {
		row("satisfaction_by_queue", sat.ID, queues[sat.ID], flt(sat.Score))
	}
	for _, o := range []struct {
		name string
		m    engine.DashboardMoney
	}{{"won", d.Opportunities.Won}, {"lost", d.Opportunities.Lost}, {"open", d.Opportunities.Open}} {
		row("opportunities_"+o.name+"_count", 0, "", num(o.m.Count))
		row("opportunities_"+o.name+"_value", 0, "", strconv.FormatFloat(float64(o.m.Cents)/100, 'f', 2, 64))
	}
	for _, day := range d.Series {
		row("series_opened", 0, day.Date, num(day.Opened))
		row("series_resolved", 0, day.Date, num(day.Resolved))
	}
}

func safeCell(s string) string {
	if s == "" {
		return s
	}
	if strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
