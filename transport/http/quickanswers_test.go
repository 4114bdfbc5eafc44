package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"atende/engine"
)

type quickAnswerPage struct {
	QuickAnswers []engine.QuickAnswer `json:"quickAnswers"`
	Count        int                  `json:"count"`
	HasMore      bool                 `json:"hasMore"`
}

func TestQuickAnswerRoutes(t *testing.T) {
	eachRefEnv(t, func(t *testing.T, e *refEnv) {
		ana, admin2 := e.tok("ana"), e.tok("admin2")
		list := func(tok, query string) quickAnswerPage {
			t.Helper()
			r := e.get(tok, "/quickAnswers/"+query)
			r.wantStatus(t, http.StatusOK)
			var p quickAnswerPage
			r.json(t, &p)
			return p
		}

		// The permission table grants quick-answers:manage to every profile (the
		// page sits in the operation section every profile sees).
		for _, profile := range engine.Profiles() {
			if !engine.Can(profile, engine.ActManageQuickAnswers) {
				t.Fatalf("%s may not manage quick answers", profile)
			}
		}
		r := e.post(ana, "/quickAnswers", map[string]any{"shortcut": "/ola", "message": "Olá! Como posso ajudar?"})
		r.wantStatus(t, http.StatusCreated)
		var ola engine.QuickAnswer
		r.json(t, &ola)
		if ola.ID == 0 || ola.Shortcut != "ola" || ola.CompanyID != co1 {
			t.Fatalf("created %s", r.Body)
		}
		e.wantEvent(t, co1, "quickAnswer", "create")

		t.Run("search", func(t *testing.T) {
			for _, tc := range []struct {
				q    string
				want int
			}{
				{"/ol", 1}, {"OLA", 1}, {"ajudar", 1}, {"posso", 1}, {"", 1}, {"nada", 0}, {"%", 0}, {"' OR 1=1 --", 0},
			} {
				if p := list(ana, "?searchParam="+url.QueryEscape(tc.q)); p.Count != tc.want || len(p.QuickAnswers) != tc.want || p.HasMore {
					t.Fatalf("search %q: %+v", tc.q, p)
				}
			}
			r := e.get(ana, "/quickAnswers?searchParam=ola")
			r.wantStatus(t, http.StatusOK)
			e.get(ana, "/quickAnswers/?searchParam="+strings.Repeat("é", 10000)).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			e.get(ana, "/quickAnswers/?pageNumber=x").wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		})

		t.Run("paging", func(t *testing.T) {
			for i := range 24 {
				if _, err := e.quickAnswers.Create(context.Background(), co1, engine.QuickAnswerInput{Shortcut: fmt.Sprintf("r%02d", i), Message: "m"}); err != nil {
					t.Fatal(err)
				}
			}
			p1, p2 := list(ana, "?pageNumber=1"), list(ana, "?pageNumber=2")
			if len(p1.QuickAnswers) != engine.QuickAnswerPageSize || !p1.HasMore || p1.Count != 25 || len(p2.QuickAnswers) != 5 || p2.HasMore {
				t.Fatalf("page 1 %d (more %v), page 2 %d (more %v)", len(p1.QuickAnswers), p1.HasMore, len(p2.QuickAnswers), p2.HasMore)
			}
		})

		t.Run("validation and hostile bodies", func(t *testing.T) {
			for _, tc := range []struct {
				body  map[string]any
				field string
				msg   string
			}{
				{map[string]any{"message": "x"}, "shortcut", engine.MsgRequired},
				{map[string]any{"shortcut": "x"}, "message", engine.MsgRequired},
				{map[string]any{"shortcut": strings.Repeat("s", 51), "message": "x"}, "shortcut", engine.MsgTooLong},
				{map[string]any{"shortcut": "s", "message": strings.Repeat("m", 4097)}, "message", engine.MsgTooLong},
				{map[string]any{"shortcut": "a\nb", "message": "x"}, "shortcut", engine.MsgInvalidValue},
			} {
				b := e.post(ana, "/quickAnswers", tc.body).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
				if b.Fields[tc.field] != tc.msg {
					t.Fatalf("fields %v", b.Fields)
				}
			}
			for _, raw := range []string{`{"shortcut": 1, "message": "x"}`, `{"shortcut": "a", "message": {}}`, `{`} {
				e.post(ana, "/quickAnswers", raw).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			}
			e.wantNoEvent(t)
		})

		path := fmt.Sprintf("/quickAnswers/%d", ola.ID)
		t.Run("get and update", func(t *testing.T) {
			r := e.get(ana, path)
			r.wantStatus(t, http.StatusOK)
			if r.obj(t)["shortcut"] != "ola" {
				t.Fatalf("get %s", r.Body)
			}
			e.get(ana, "/quickAnswers/0").wantErr(t, http.StatusNotFound, engine.ErrNoQuickAnswerFound)
			r = e.put(e.tok("bruno"), path, map[string]any{"shortcut": "oi", "message": "Oi! 😀"})
			r.wantStatus(t, http.StatusOK)
			if got := r.obj(t); got["shortcut"] != "oi" || got["message"] != "Oi! 😀" {
				t.Fatalf("put %s", r.Body)
			}
			e.wantEvent(t, co1, "quickAnswer", "update")
		})

		t.Run("other tenant cannot reach it", func(t *testing.T) {
			e.get(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNoQuickAnswerFound)
			e.put(admin2, path, map[string]any{"shortcut": "x", "message": "y"}).wantErr(t, http.StatusNotFound, engine.ErrNoQuickAnswerFound)
			e.del(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNoQuickAnswerFound)
			if p := list(admin2, ""); p.Count != 0 {
				t.Fatalf("tenant 2 sees %+v", p)
			}
			e.wantNoEvent(t)
		})

		t.Run("delete", func(t *testing.T) {
			e.del(ana, path).wantStatus(t, http.StatusNoContent)
			if p := e.wantEvent(t, co1, "quickAnswer", "delete"); p["quickAnswerId"].(float64) != float64(ola.ID) {
				t.Fatalf("event %v", p)
			}
			e.get(ana, path).wantErr(t, http.StatusNotFound, engine.ErrNoQuickAnswerFound)
		})
	})
}
