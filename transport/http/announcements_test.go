package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
)

type announcementPage struct {
	Records []engine.Announcement `json:"records"`
	Count   int                   `json:"count"`
	HasMore bool                  `json:"hasMore"`
}

// newAnnouncementEnv builds the env of newRefEnv with only the announcement store
// wired (the other reference-data routes answer 503 here).
func newAnnouncementEnv(t *testing.T, d *db.DB) (*refEnv, *store.Announcements) {
	t.Helper()
	var ann *store.Announcements
	e := newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
		ann = store.NewAnnouncements(d, e.clock)
		deps.RefDeps = httpapi.RefDeps{Announcements: ann}
	}))
	return &refEnv{env: e}, ann
}

func TestAnnouncementRoutes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e, ann := newAnnouncementEnv(t, d)
		ana, superv, admin2 := e.tok("ana"), e.tok("superv"), e.tok("admin2")
		list := func(tok, query string) announcementPage {
			t.Helper()
			r := e.get(tok, "/announcements/"+query)
			r.wantStatus(t, http.StatusOK)
			var p announcementPage
			r.json(t, &p)
			return p
		}

		t.Run("only supervision profiles write", func(t *testing.T) {
			for _, local := range []string{"ana", "bruno"} {
				e.post(e.tok(local), "/announcements", map[string]any{"title": "t", "text": "x"}).
					wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			}
			for _, profile := range engine.Profiles() {
				want := profile != engine.ProfileUser && profile != engine.ProfileUserPlus
				if engine.Can(profile, engine.ActManageAnnouncements) != want {
					t.Fatalf("%s: announcements:manage %v", profile, !want)
				}
			}
			e.wantNoEvent(t)
		})

		r := e.post(superv, "/announcements", map[string]any{"title": "Férias coletivas", "text": "De 20/12 a 05/01.", "priority": 1})
		r.wantStatus(t, http.StatusCreated)
		var ferias engine.Announcement
		r.json(t, &ferias)
		if ferias.ID == 0 || ferias.Title != "Férias coletivas" || ferias.Priority != 1 || !ferias.Status || ferias.CompanyID != co1 {
			t.Fatalf("created %s", r.Body)
		}
		if p := e.wantEvent(t, co1, "announcement", "create"); p["announcement"].(map[string]any)["title"] != "Férias coletivas" {
			t.Fatalf("event %v", p)
		}

		t.Run("everyone reads; search and active filter", func(t *testing.T) {
			if _, err := ann.Create(context.Background(), co1, engine.AnnouncementInput{Title: "Rascunho", Text: "oculto",
				Status: new(bool)}); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				q    string
				want int
			}{
				{"", 2}, {"?status=active", 1}, {"?searchParam=FERIAS", 1}, {"?searchParam=oculto&status=active", 0},
				{"?searchParam=" + url.QueryEscape("' OR 1=1 --"), 0}, {"?searchParam=%25", 0},
			} {
				if p := list(ana, tc.q); p.Count != tc.want || len(p.Records) != tc.want || p.HasMore {
					t.Fatalf("list %q: %+v", tc.q, p)
				}
			}
			if p := list(ana, "?status=active"); p.Records[0].ID != ferias.ID {
				t.Fatalf("newest active %+v", p)
			}
			e.get(ana, "/announcements").wantStatus(t, http.StatusOK)
			e.get(ana, "/announcements/?status=x").wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			e.get(ana, "/announcements/?pageNumber=x").wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			e.get(ana, "/announcements/?searchParam="+strings.Repeat("é", 10000)).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			e.get("", "/announcements/").wantStatus(t, http.StatusUnauthorized)
		})

		t.Run("paging", func(t *testing.T) {
			for i := range 23 {
				if _, err := ann.Create(context.Background(), co1, engine.AnnouncementInput{Title: fmt.Sprintf("a%02d", i), Text: "m"}); err != nil {
					t.Fatal(err)
				}
			}
			p1, p2 := list(ana, "?pageNumber=1"), list(ana, "?pageNumber=2")
			if len(p1.Records) != engine.AnnouncementPageSize || !p1.HasMore || p1.Count != 25 || len(p2.Records) != 5 || p2.HasMore {
				t.Fatalf("page 1 %d (more %v), page 2 %d (more %v)", len(p1.Records), p1.HasMore, len(p2.Records), p2.HasMore)
			}
		})

		t.Run("validation and hostile bodies", func(t *testing.T) {
			for _, tc := range []struct {
				body  map[string]any
				field string
				msg   string
			}{
				{map[string]any{"text": "x"}, "title", engine.MsgRequired},
				{map[string]any{"title": "x"}, "text", engine.MsgRequired},
				{map[string]any{"title": strings.Repeat("t", 101), "text": "x"}, "title", engine.MsgTooLong},
				{map[string]any{"title": "t", "text": strings.Repeat("m", 4097)}, "text", engine.MsgTooLong},
				{map[string]any{"title": "a\nb", "text": "x"}, "title", engine.MsgInvalidValue},
				{map[string]any{"title": "t", "text": "x", "priority": 9}, "priority", engine.MsgInvalidValue},
				{map[string]any{"title": "t", "text": "a\x00b"}, "text", engine.MsgInvalidValue},
			} {
				b := e.post(superv, "/announcements", tc.body).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
				if b.Fields[tc.field] != tc.msg {
					t.Fatalf("%v: fields %v", tc.body, b.Fields)
				}
			}
			for _, raw := range []string{`{"title": 1, "text": "x"}`, `{"title": "a", "text": {}}`, `{"title": "a", "text": "b", "status": "yes"}`, `{`} {
				e.post(superv, "/announcements", raw).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			}
			e.wantNoEvent(t)
		})

		path := fmt.Sprintf("/announcements/%d", ferias.ID)
		t.Run("get and update", func(t *testing.T) {
			r := e.get(ana, path)
			r.wantStatus(t, http.StatusOK)
			if r.obj(t)["title"] != "Férias coletivas" {
				t.Fatalf("get %s", r.Body)
			}
			e.get(ana, "/announcements/0").wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			e.get(ana, "/announcements/abc").wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			e.put(ana, path, map[string]any{"title": "x", "text": "y"}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			r = e.put(e.tok("admin"), path, map[string]any{"title": "Recesso 😀", "text": "Voltamos dia 6.", "priority": 2, "status": false})
			r.wantStatus(t, http.StatusOK)
			if got := r.obj(t); got["title"] != "Recesso 😀" || got["priority"] != float64(2) || got["status"] != false {
				t.Fatalf("put %s", r.Body)
			}
			e.wantEvent(t, co1, "announcement", "update")
			// Hostile updates change nothing.
			admin := e.tok("admin")
			e.put(admin, "/announcements/abc", map[string]any{"title": "x", "text": "y"}).wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			e.put(admin, "/announcements/-1", map[string]any{"title": "x", "text": "y"}).wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			e.put(admin, path, `{"title": "x", "text": `).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			e.put(admin, path, `{"title": 5, "text": "y"}`).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			e.put(admin, path, `{"title": "x", "text": "y"} {}`).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			e.put(admin, path, map[string]any{"title": "nul\x00", "text": "y"}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if got := e.get(ana, path).obj(t); got["title"] != "Recesso 😀" {
				t.Fatalf("after hostile updates %v", got)
			}
			e.wantNoEvent(t)
		})

		t.Run("other tenant cannot reach it", func(t *testing.T) {
			e.get(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			e.put(admin2, path, map[string]any{"title": "x", "text": "y"}).wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			e.del(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			if p := list(admin2, ""); p.Count != 0 {
				t.Fatalf("tenant 2 sees %+v", p)
			}
			e.wantNoEvent(t)
		})

		t.Run("delete", func(t *testing.T) {
			e.del(ana, path).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			e.del(e.tok("manager"), path).wantStatus(t, http.StatusNoContent)
			if p := e.wantEvent(t, co1, "announcement", "delete"); p["announcementId"].(float64) != float64(ferias.ID) {
				t.Fatalf("event %v", p)
			}
			e.get(ana, path).wantErr(t, http.StatusNotFound, engine.ErrNotFound)
		})
	})
}
