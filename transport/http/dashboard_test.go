package httpapi_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/dashboard"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
)

// dashEnv is an env with the dashboard wired over the real read model, holding a few
// tickets of each tenant folded by the real Folder.
func dashEnv(t *testing.T, d *db.DB) *env {
	t.Helper()
	e := newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
		deps.RefDeps = httpapi.RefDeps{Queues: store.NewQueues(d, e.clock),
			Dashboard: dashboard.NewQueries(d, dashboard.FixedZone(time.UTC))}
	}))
	f := dashboard.NewFolder(time.UTC)
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for i, c := range []struct {
		company engine.ID
		queue   engine.ID
		status  string
	}{{co1, 11, engine.StatusOpen}, {co1, 11, engine.StatusPending}, {co1, 12, engine.StatusOpen}, {co2, 21, engine.StatusOpen}} {
		tk := &dashboard.Ticket{ID: engine.ID(i + 1)}
		f.Fold(tk, c.company, 1, engine.TicketOpened{TicketID: tk.ID, CompanyID: c.company, QueueID: c.queue,
			UserID: e.ids["ana"], Status: c.status, Channel: engine.ChannelWhatsApp, At: at})
		f.Fold(tk, c.company, 2, engine.TicketRated{Score: 3, QueueID: c.queue, UserID: e.ids["ana"], At: at})
	}
	if err := dashboard.WriteDeltas(context.Background(), d.SQL, d.Dialect, f.Deltas); err != nil {
		t.Fatal(err)
	}
	dbtest.MustExec(t, d, `UPDATE queues SET name = '=HYPERLINK("x")' WHERE id = 12`)
	return e
}

func TestDashboardRoute(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := dashEnv(t, d)
		const q = "/dashboard?dateFrom=2026-03-01&dateTo=2026-03-31"

		t.Run("attendants may not see it", func(t *testing.T) {
			for _, who := range []string{"ana", "bruno"} {
				e.get(e.tok(who), q).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
				e.get(e.tok(who), "/dashboard/export?dateFrom=2026-03-01&dateTo=2026-03-31").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			}
			e.get("", q).wantStatus(t, http.StatusUnauthorized)
		})

		t.Run("supervisors see their tenant only", func(t *testing.T) {
			var got engine.Dashboard
			r := e.get(e.tok("superv"), q)
			r.wantStatus(t, http.StatusOK)
			r.json(t, &got)
			if got.ByStatus[engine.StatusOpen] != 2 || got.ByStatus[engine.StatusPending] != 1 || got.Opened != 3 {
				t.Fatalf("co1 dashboard %+v", got)
			}
			if got.Satisfaction.TotalCount != 3 || got.Satisfaction.Score != 10 || got.Satisfaction.Icon != engine.SatisfactionHigh {
				t.Fatalf("satisfaction %+v", got.Satisfaction)
			}
			for _, c := range got.ByQueue {
				if c.ID == 21 {
					t.Fatalf("another tenant's queue: %+v", got.ByQueue)
				}
			}
			var other engine.Dashboard
			e.get(e.tok("admin2"), q).json(t, &other)
			if other.Opened != 1 {
				t.Fatalf("co2 dashboard %+v", other)
			}
			var filtered engine.Dashboard
			e.get(e.tok("admin"), q+"&queueIds=[12]").json(t, &filtered)
			if filtered.Opened != 1 || filtered.ByStatus[engine.StatusOpen] != 1 {
				t.Fatalf("queue 12 %+v", filtered)
			}
			var before engine.Dashboard
			e.get(e.tok("admin"), "/dashboard?dateFrom=2016-01-01&dateTo=2026-03-09").json(t, &before)
			if before.Opened != 0 {
				t.Fatalf("ten years before %+v", before)
			}
		})

		t.Run("bad filters", func(t *testing.T) {
			tok := e.tok("admin")
			for _, c := range []struct{ query, field, msg string }{
				{"/dashboard?dateTo=2026-03-01", "dateFrom", engine.MsgRequired},
				{"/dashboard?dateFrom=2026-03-01", "dateTo", engine.MsgRequired},
				{"/dashboard?dateFrom=2026-02-30&dateTo=2026-03-01", "dateFrom", engine.MsgInvalidValue},
				{"/dashboard?dateFrom=2026-03-01'--&dateTo=2026-03-01", "dateFrom", engine.MsgInvalidValue},
				{"/dashboard?dateFrom=2026-03-02&dateTo=2026-03-01", "dateTo", engine.MsgInvalidValue},
				{"/dashboard?dateFrom=1800-01-01&dateTo=2099-12-31", "dateTo", engine.MsgTooLong},
				{"/dashboard?dateFrom=2026-03-01&dateTo=2026-03-01&queueIds=[-1]", "queueIds", engine.MsgInvalidValue},
				{"/dashboard?dateFrom=2026-03-01&dateTo=2026-03-01&queueIds=1,x", "queueIds", engine.MsgInvalidValue},
			} {
				b := e.get(tok, c.query).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
				if b.Fields[c.field] != c.msg {
					t.Errorf("%s: fields %v, want %s: %s", c.query, b.Fields, c.field, c.msg)
				}
			}
		})

		t.Run("csv export", func(t *testing.T) {
			r := e.get(e.tok("manager"), "/dashboard/export?dateFrom=2026-03-01&dateTo=2026-03-31")
			r.wantStatus(t, http.StatusOK)
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
				t.Fatalf("content type %q", ct)
			}
			rows, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{"tickets_by_status,,open,2": false, "tickets_by_queue,11,Vendas,2": false,
				`tickets_by_queue,12,'=HYPERLINK("x"),1`: false, "opened,,,3": false, "satisfaction,,,10.0": false}
			for _, row := range rows {
				if _, ok := want[strings.Join(row, ",")]; ok {
					want[strings.Join(row, ",")] = true
				}
			}
			for line, seen := range want {
				if !seen {
					t.Errorf("no row %s in\n%s", line, r.Body)
				}
			}
		})
	})
}
