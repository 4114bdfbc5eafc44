package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"atende/engine"
)

func TestTagRoutes(t *testing.T) {
	eachRefEnv(t, func(t *testing.T, e *refEnv) {
		ana, superv, admin2 := e.tok("ana"), e.tok("superv"), e.tok("admin2")
		r := e.get(ana, "/tags/list")
		r.wantStatus(t, http.StatusOK)
		if strings.TrimSpace(string(r.Body)) != "[]" {
			t.Fatalf("empty list %s", r.Body)
		}

		// Any profile may create: the chat's tag picker creates typed tags.
		r = e.post(ana, "/tags", map[string]any{"name": "VIP", "color": "#FFD700"})
		r.wantStatus(t, http.StatusCreated)
		var vip engine.Tag
		r.json(t, &vip)
		if vip.ID == 0 || vip.Name != "VIP" || vip.Color != "#ffd700" {
			t.Fatalf("created %s", r.Body)
		}
		e.wantEvent(t, co1, "tags", "create")

		t.Run("existing name answers the existing tag", func(t *testing.T) {
			r := e.post(e.tok("bruno"), "/tags", map[string]any{"name": " vip "})
			r.wantStatus(t, http.StatusOK)
			var again engine.Tag
			r.json(t, &again)
			if again != vip {
				t.Fatalf("got %+v, want %+v", again, vip)
			}
			e.wantNoEvent(t)
		})

		t.Run("no colour gets one", func(t *testing.T) {
			r := e.post(ana, "/tags", map[string]any{"name": "Urgente"})
			r.wantStatus(t, http.StatusCreated)
			if c, _ := r.obj(t)["color"].(string); len(c) != 7 || c[0] != '#' {
				t.Fatalf("created %s", r.Body)
			}
			e.pub.take()
		})

		t.Run("validation and hostile bodies", func(t *testing.T) {
			for _, tc := range []struct {
				body  map[string]any
				field string
				msg   string
			}{
				{map[string]any{"name": ""}, "name", engine.MsgRequired},
				{map[string]any{"name": strings.Repeat("t", 51)}, "name", engine.MsgTooLong},
				{map[string]any{"name": "ok", "color": "red"}, "color", engine.MsgInvalidColor},
			} {
				b := e.post(ana, "/tags", tc.body).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
				if b.Fields[tc.field] != tc.msg {
					t.Fatalf("fields %v", b.Fields)
				}
			}
			for _, raw := range []string{`{"name": 123}`, `{"name": ["a"]}`, `nope`, `{"name": "a", "color": 5}`} {
				e.post(ana, "/tags", raw).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			}
			e.post(ana, "/tags", `{"name": "`+strings.Repeat("x", 70<<10)+`"}`).wantErr(t, http.StatusRequestEntityTooLarge, engine.ErrBodyTooLarge)
			r := e.post(ana, "/tags", map[string]any{"name": "'; DROP TABLE tags;--"})
			r.wantStatus(t, http.StatusCreated)
			e.pub.take()
		})

		t.Run("search", func(t *testing.T) {
			for _, tc := range []struct {
				q    string
				want int
			}{
				{"vi", 1}, {"URG", 1}, {"", 3}, {"%", 0}, {"drop table", 1}, {"🚀", 0},
			} {
				r := e.get(ana, "/tags?searchParam="+url.QueryEscape(tc.q))
				r.wantStatus(t, http.StatusOK)
				var page struct {
					Tags    []engine.Tag `json:"tags"`
					Count   int          `json:"count"`
					HasMore bool         `json:"hasMore"`
				}
				r.json(t, &page)
				if len(page.Tags) != tc.want || page.Count != tc.want || page.HasMore {
					t.Fatalf("search %q: %s", tc.q, r.Body)
				}
			}
			e.get(ana, "/tags?searchParam="+strings.Repeat("v", 10000)).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		})

		path := fmt.Sprintf("/tags/%d", vip.ID)
		t.Run("update and delete need tags:manage", func(t *testing.T) {
			for _, profile := range []string{engine.ProfileUser, engine.ProfileUserPlus} {
				tok := e.tok(refProfiles[profile])
				e.put(tok, path, map[string]any{"name": "VIP 2"}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
				e.del(tok, path).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			}
			e.wantNoEvent(t)
			r := e.put(superv, path, map[string]any{"name": "VIP Ouro"})
			r.wantStatus(t, http.StatusOK)
			if got := r.obj(t); got["name"] != "VIP Ouro" || got["color"] != "#ffd700" {
				t.Fatalf("updated %s", r.Body)
			}
			e.wantEvent(t, co1, "tags", "update")
			b := e.put(superv, path, map[string]any{"name": "urgente"}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if b.Fields["name"] != engine.MsgAlreadyExists {
				t.Fatalf("fields %v", b.Fields)
			}
			e.put(superv, "/tags/abc", map[string]any{"name": "x"}).wantErr(t, http.StatusNotFound, engine.ErrNoTagFound)
		})

		t.Run("other tenant cannot reach it", func(t *testing.T) {
			e.put(admin2, path, map[string]any{"name": "Roubada"}).wantErr(t, http.StatusNotFound, engine.ErrNoTagFound)
			e.del(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNoTagFound)
			r := e.get(admin2, "/tags/list")
			r.wantStatus(t, http.StatusOK)
			if strings.TrimSpace(string(r.Body)) != "[]" {
				t.Fatalf("tenant 2 sees %s", r.Body)
			}
			// The same name in tenant 2 is tenant 2's own tag.
			e.post(admin2, "/tags", map[string]any{"name": "VIP Ouro"}).wantStatus(t, http.StatusCreated)
			e.wantEvent(t, co2, "tags", "create")
		})

		t.Run("delete", func(t *testing.T) {
			e.del(superv, path).wantStatus(t, http.StatusNoContent)
			if p := e.wantEvent(t, co1, "tags", "delete"); p["tagId"].(float64) != float64(vip.ID) {
				t.Fatalf("event %v", p)
			}
			e.del(superv, path).wantErr(t, http.StatusNotFound, engine.ErrNoTagFound)
		})
	})
}
