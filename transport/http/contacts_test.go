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

// refContact decodes a contact answer.
func refContact(t *testing.T, r resp) engine.Contact {
	t.Helper()
	var c engine.Contact
	r.json(t, &c)
	return c
}

func TestContactCreateRoutes(t *testing.T) {
	eachRefEnv(t, func(t *testing.T, e *refEnv) {
		ana := e.tok("ana")
		r := e.post(ana, "/contacts", map[string]any{
			"name": " João da Silva ", "number": "+55 (65) 99999-0001", "email": "Joao@Example.com",
			"extraInfo": []map[string]any{{"name": "CPF", "value": "123"}},
			"salesOpps": []map[string]any{{"name": "Plano", "value": "100", "stage": "proposta", "closingStatus": ""}, {"name": "Velho", "closingStatus": "0"}},
		})
		r.wantStatus(t, http.StatusCreated)
		c := refContact(t, r)
		if c.ID == 0 || c.CompanyID != co1 || c.Name != "João da Silva" || c.Number != "5565999990001" || c.Email != "joao@example.com" ||
			len(c.ExtraInfo) != 1 || c.ExtraInfo[0].ID == 0 || len(c.SalesOpps) != 2 || c.SalesOpps[0].ClosingStatus != nil ||
			c.SalesOpps[1].ClosingStatus == nil || *c.SalesOpps[1].ClosingStatus != 0 {
			t.Fatalf("created %s", r.Body)
		}
		p := e.wantEvent(t, co1, "contact", "create")
		if p["contact"].(map[string]any)["number"] != "5565999990001" {
			t.Fatalf("event payload %v", p)
		}

		t.Run("POST /contact behaves the same", func(t *testing.T) {
			r := e.post(ana, "/contact", map[string]any{"name": "Maria", "number": "5511 98888-0002"})
			r.wantStatus(t, http.StatusCreated)
			if c := refContact(t, r); c.Number != "5511988880002" || c.Email != "" || c.ExtraInfo == nil {
				t.Fatalf("created %s", r.Body)
			}
			e.wantEvent(t, co1, "contact", "create")
		})

		t.Run("duplicate number", func(t *testing.T) {
			for _, path := range []string{"/contacts", "/contact"} {
				e.post(ana, path, map[string]any{"name": "Outro", "number": "55 65 99999 0001"}).
					wantErr(t, http.StatusConflict, engine.ErrDuplicatedContact)
			}
			e.wantNoEvent(t)
			// Another tenant may have the same number.
			e.post(e.tok("user2"), "/contacts", map[string]any{"name": "Cliente", "number": "5565999990001"}).
				wantStatus(t, http.StatusCreated)
			e.pub.take()
		})

		t.Run("validation", func(t *testing.T) {
			for _, tc := range []struct {
				name  string
				body  map[string]any
				field string
				msg   string
			}{
				{"name required", map[string]any{"number": "5565999990003"}, "name", engine.MsgRequired},
				{"name too short", map[string]any{"name": "J"}, "name", engine.MsgTooShort},
				{"name too long", map[string]any{"name": strings.Repeat("ã", 51)}, "name", engine.MsgTooLong},
				{"number too short", map[string]any{"name": "Ana", "number": "1234567"}, "number", engine.MsgTooShort},
				{"number too long", map[string]any{"name": "Ana", "number": strings.Repeat("9", 51)}, "number", engine.MsgTooLong},
				{"number not digits", map[string]any{"name": "Ana", "number": "55-abc-1234"}, "number", engine.MsgInvalidNumber},
				{"email", map[string]any{"name": "Ana", "email": "ana@@x"}, "email", engine.MsgInvalidEmail},
				{"extra info name", map[string]any{"name": "Ana", "extraInfo": []map[string]any{{"value": "v"}}}, "extraInfo.0.name", engine.MsgRequired},
				{"closing status", map[string]any{"name": "Ana", "salesOpps": []map[string]any{{"name": "x", "closingStatus": 7}}}, "salesOpps.0.closingStatus", engine.MsgInvalidValue},
				{"control characters", map[string]any{"name": "Ana\u0000Bia"}, "name", engine.MsgInvalidValue},
			} {
				t.Run(tc.name, func(t *testing.T) {
					b := e.post(ana, "/contacts", tc.body).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
					if b.Fields[tc.field] != tc.msg {
						t.Fatalf("fields %v, want %s=%q", b.Fields, tc.field, tc.msg)
					}
				})
			}
			e.wantNoEvent(t)
		})

		t.Run("hostile bodies", func(t *testing.T) {
			for _, tc := range []struct {
				name   string
				body   string
				status int
				code   engine.Code
			}{
				{"malformed", `{"name": "Ana"`, http.StatusBadRequest, engine.ErrInvalidJSON},
				{"empty", ``, http.StatusBadRequest, engine.ErrInvalidJSON},
				{"array", `[]`, http.StatusBadRequest, engine.ErrInvalidJSON},
				{"name a number", `{"name": 123}`, http.StatusBadRequest, engine.ErrInvalidJSON},
				{"extraInfo a string", `{"name": "Ana", "extraInfo": "x"}`, http.StatusBadRequest, engine.ErrInvalidJSON},
				{"salesOpps of numbers", `{"name": "Ana", "salesOpps": [1, 2]}`, http.StatusBadRequest, engine.ErrInvalidJSON},
				{"closing status a word", `{"name": "Ana", "salesOpps": [{"name": "x", "closingStatus": "won"}]}`, http.StatusBadRequest, engine.ErrInvalidJSON},
				{"two values", `{"name": "Ana"} {"name": "Bia"}`, http.StatusBadRequest, engine.ErrInvalidJSON},
				{"oversized", `{"name": "` + strings.Repeat("a", 70<<10) + `"}`, http.StatusRequestEntityTooLarge, engine.ErrBodyTooLarge},
			} {
				t.Run(tc.name, func(t *testing.T) {
					e.post(ana, "/contacts", tc.body).wantErr(t, tc.status, tc.code)
				})
			}
			r := e.post(ana, "/contacts", map[string]any{"name": "Robert'); DROP TABLE contacts;--", "number": "5565999990004"})
			r.wantStatus(t, http.StatusCreated)
			if c := refContact(t, r); c.Name != "Robert'); DROP TABLE contacts;--" {
				t.Fatalf("stored %q", c.Name)
			}
			r = e.post(ana, "/contacts", map[string]any{"name": "Zé 🚀 日本", "number": "5565999990005"})
			r.wantStatus(t, http.StatusCreated)
			if c := refContact(t, r); c.Name != "Zé 🚀 日本" {
				t.Fatalf("stored %q", c.Name)
			}
			e.pub.take()
		})

		t.Run("unauthenticated", func(t *testing.T) {
			e.post("", "/contacts", map[string]any{"name": "Ana"}).wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)
			e.post("garbage", "/contacts", map[string]any{"name": "Ana"}).wantErr(t, http.StatusForbidden, engine.ErrInvalidToken)
		})
	})
}

func TestContactReadUpdateDeleteRoutes(t *testing.T) {
	eachRefEnv(t, func(t *testing.T, e *refEnv) {
		ctx := context.Background()
		c, err := e.contacts.Create(ctx, co1, engine.ContactInput{Name: "Carla Souza", Number: "5565988887777",
			ExtraInfo: []engine.ExtraInfo{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}},
			SalesOpps: []engine.SalesOpp{{Name: "deal"}}})
		if err != nil {
			t.Fatal(err)
		}
		ana, admin2 := e.tok("ana"), e.tok("admin2")
		path := fmt.Sprintf("/contacts/%d", c.ID)

		t.Run("get", func(t *testing.T) {
			r := e.get(ana, path)
			r.wantStatus(t, http.StatusOK)
			got := refContact(t, r)
			if got.ID != c.ID || len(got.ExtraInfo) != 2 || got.AppraisalData == nil {
				t.Fatalf("got %s", r.Body)
			}
			e.get(ana, "/contacts/abc").wantErr(t, http.StatusNotFound, engine.ErrNoContactFound)
			e.get(ana, "/contacts/-1").wantErr(t, http.StatusNotFound, engine.ErrNoContactFound)
			e.get(ana, "/contacts/99999").wantErr(t, http.StatusNotFound, engine.ErrNoContactFound)
		})

		t.Run("update keeps item ids", func(t *testing.T) {
			r := e.put(ana, path, map[string]any{
				"name": "Carla S.", "number": "5565988887777", "email": "carla@example.com",
				"extraInfo": []map[string]any{{"id": c.ExtraInfo[1].ID, "name": "b", "value": "22"}, {"name": "c", "value": "3"}},
				"salesOpps": []map[string]any{{"id": c.SalesOpps[0].ID, "name": "deal", "stage": "fechando", "closingStatus": nil}},
			})
			r.wantStatus(t, http.StatusOK)
			got := refContact(t, r)
			if got.Name != "Carla S." || len(got.ExtraInfo) != 2 || got.ExtraInfo[0].ID != c.ExtraInfo[1].ID ||
				got.ExtraInfo[0].Value != "22" || got.ExtraInfo[1].ID == c.ExtraInfo[0].ID || got.SalesOpps[0].ID != c.SalesOpps[0].ID ||
				got.SalesOpps[0].Stage != "fechando" {
				t.Fatalf("updated %s", r.Body)
			}
			e.wantEvent(t, co1, "contact", "update")
			// Lists left out are left alone.
			r = e.put(ana, path, map[string]any{"name": "Carla S.", "number": "5565988887777"})
			r.wantStatus(t, http.StatusOK)
			if got := refContact(t, r); len(got.ExtraInfo) != 2 || len(got.SalesOpps) != 1 || got.Email != "" {
				t.Fatalf("updated %s", r.Body)
			}
			e.pub.take()
			e.put(ana, path, map[string]any{"name": "X"}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			e.put(ana, path, `{"name": "Carla", "extraInfo": "x"}`).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			other, err := e.contacts.Create(ctx, co1, engine.ContactInput{Name: "Outra", Number: "5565911110000"})
			if err != nil {
				t.Fatal(err)
			}
			e.put(ana, path, map[string]any{"name": "Carla", "number": other.Number}).
				wantErr(t, http.StatusConflict, engine.ErrDuplicatedContact)
			e.wantNoEvent(t)
		})

		t.Run("list", func(t *testing.T) {
			r := e.get(ana, "/contacts?searchParam=CARLA")
			r.wantStatus(t, http.StatusOK)
			var page struct {
				Contacts   []engine.Contact `json:"contacts"`
				Count      int              `json:"count"`
				HasMore    bool             `json:"hasMore"`
				NextCursor string           `json:"nextCursor"`
			}
			r.json(t, &page)
			if len(page.Contacts) != 1 || page.Contacts[0].ID != c.ID || page.Count != 1 || page.HasMore || page.NextCursor != "" {
				t.Fatalf("page %s", r.Body)
			}
		})

		t.Run("other tenant cannot reach it", func(t *testing.T) {
			e.get(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNoContactFound)
			e.put(admin2, path, map[string]any{"name": "Roubado"}).wantErr(t, http.StatusNotFound, engine.ErrNoContactFound)
			e.put(admin2, path, map[string]any{}).wantErr(t, http.StatusNotFound, engine.ErrNoContactFound)
			e.del(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNoContactFound)
			e.put(admin2, fmt.Sprintf("/opportunity/%d", c.ID), map[string]any{"closingStatus": 1, "oppId": c.SalesOpps[0].ID}).
				wantErr(t, http.StatusNotFound, engine.ErrNoContactFound)
			e.put(admin2, fmt.Sprintf("/opportunity/%d", c.SalesOpps[0].ID), map[string]any{"closingStatus": 1}).
				wantErr(t, http.StatusNotFound, engine.ErrNoContactFound)
			r := e.get(admin2, "/contacts?searchParam=carla")
			r.wantStatus(t, http.StatusOK)
			if page := r.obj(t); page["count"].(float64) != 0 {
				t.Fatalf("tenant 2 lists %s", r.Body)
			}
			e.wantNoEvent(t)
			if got, err := e.contacts.Get(ctx, co1, c.ID); err != nil || got.Name != "Carla S." || got.SalesOpps[0].ClosingStatus != nil {
				t.Fatalf("contact changed: %+v %v", got, err)
			}
		})

		t.Run("delete needs contacts-page:deleteContact", func(t *testing.T) {
			for _, profile := range []string{engine.ProfileUser, engine.ProfileUserPlus, engine.ProfileSuperv, engine.ProfileManager} {
				e.del(e.tok(refProfiles[profile]), path).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			}
			e.wantNoEvent(t)
			for _, profile := range []string{engine.ProfileAdmin, engine.ProfileSuper} {
				victim, err := e.contacts.Create(ctx, co1, engine.ContactInput{Name: "Apagável " + profile})
				if err != nil {
					t.Fatal(err)
				}
				e.del(e.tok(refProfiles[profile]), fmt.Sprintf("/contacts/%d", victim.ID)).wantStatus(t, http.StatusNoContent)
				if p := e.wantEvent(t, co1, "contact", "delete"); p["contactId"].(float64) != float64(victim.ID) {
					t.Fatalf("event %v", p)
				}
				_, err = e.contacts.Get(ctx, co1, victim.ID)
				if engine.CodeOf(err) != engine.ErrNoContactFound {
					t.Fatalf("still there: %v", err)
				}
			}
			e.del(e.tok("admin"), "/contacts/99999").wantErr(t, http.StatusNotFound, engine.ErrNoContactFound)
		})
	})
}

func TestContactListRoutes(t *testing.T) {
	eachRefEnv(t, func(t *testing.T, e *refEnv) {
		ctx := context.Background()
		for i := range 45 {
			if _, err := e.contacts.Create(ctx, co1, engine.ContactInput{Name: fmt.Sprintf("Cliente %02d", i), Number: fmt.Sprintf("5565900%06d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		ana := e.tok("ana")
		type page struct {
			Contacts   []engine.Contact `json:"contacts"`
			Count      int              `json:"count"`
			HasMore    bool             `json:"hasMore"`
			NextCursor string           `json:"nextCursor"`
		}
		list := func(query string) page {
			t.Helper()
			r := e.get(ana, "/contacts"+query)
			r.wantStatus(t, http.StatusOK)
			var p page
			r.json(t, &p)
			return p
		}
		p1 := list("?pageNumber=1")
		if len(p1.Contacts) != engine.ContactPageSize || p1.Count != 45 || !p1.HasMore || p1.NextCursor == "" || p1.Contacts[0].Name != "Cliente 00" {
			t.Fatalf("page 1: %d contacts, count %d, more %v", len(p1.Contacts), p1.Count, p1.HasMore)
		}
		p2 := list("?pageNumber=2")
		byCursor := list("?cursor=" + url.QueryEscape(p1.NextCursor) + "&pageNumber=7")
		if raw := e.get(ana, "/contacts?cursor="+url.QueryEscape(p1.NextCursor)).obj(t); raw["count"] != nil {
			t.Fatalf("cursor page carries a count: %v", raw["count"])
		}
		if len(p2.Contacts) != 5 || p2.HasMore || len(byCursor.Contacts) != 5 || byCursor.Contacts[0].ID != p2.Contacts[0].ID ||
			p2.Contacts[0].Name != "Cliente 40" {
			t.Fatalf("page 2: %+v / by cursor %+v", p2, byCursor)
		}
		if list("/?searchParam=cliente%2004").Count != 1 || list("?searchParam=5565900000044").Count != 1 {
			t.Fatal("search by name or number")
		}
		if p := list("?pageNumber=9"); len(p.Contacts) != 0 || p.HasMore || p.Count != 45 {
			t.Fatalf("past the end: %+v", p)
		}

		t.Run("hostile query strings", func(t *testing.T) {
			for _, q := range []string{
				"%' OR '1'='1", "'; DROP TABLE contacts; --", `\`, "_", "%", "🚀", "ção", "\u202e", strings.Repeat("a", 200),
			} {
				p := list("?searchParam=" + url.QueryEscape(q))
				if p.Count != 0 || len(p.Contacts) != 0 {
					t.Fatalf("search %.20q matched %d", q, p.Count)
				}
			}
			for _, tc := range []struct {
				query string
				field string
				msg   string
			}{
				{"?searchParam=" + strings.Repeat("a", 10000), "searchParam", engine.MsgTooLong},
				{"?pageNumber=abc", "pageNumber", engine.MsgInvalidNumber},
				{"?pageNumber=0", "pageNumber", engine.MsgInvalidValue},
				{"?pageNumber=-3", "pageNumber", engine.MsgInvalidValue},
				{"?cursor=not-a-cursor", "cursor", engine.MsgInvalidValue},
				{"?cursor=" + url.QueryEscape("%00%ff"), "cursor", engine.MsgInvalidValue},
			} {
				b := e.get(ana, "/contacts"+tc.query).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
				if b.Fields[tc.field] != tc.msg {
					t.Fatalf("%.40s: fields %v", tc.query, b.Fields)
				}
			}
			if list("").Count != 45 {
				t.Fatal("contacts gone after hostile searches")
			}
		})
	})
}

func TestOpportunityRoute(t *testing.T) {
	eachRefEnv(t, func(t *testing.T, e *refEnv) {
		ctx := context.Background()
		c, err := e.contacts.Create(ctx, co1, engine.ContactInput{Name: "Dora", SalesOpps: []engine.SalesOpp{{Name: "a"}, {Name: "b"}, {Name: "d"}}})
		if err != nil {
			t.Fatal(err)
		}
		// Contact ids past the opportunity ids, so that {id} is never read as one.
		var other engine.Contact
		for i := range 5 {
			if other, err = e.contacts.Create(ctx, co1, engine.ContactInput{Name: fmt.Sprint("Outra ", i)}); err != nil {
				t.Fatal(err)
			}
		}
		a, b, d := c.SalesOpps[0].ID, c.SalesOpps[1].ID, c.SalesOpps[2].ID
		ana := e.tok("ana")

		// The spec's form: {id} is the contact.
		r := e.put(ana, fmt.Sprintf("/opportunity/%d", c.ID), map[string]any{"closingStatus": 1, "oppId": a})
		r.wantStatus(t, http.StatusOK)
		if got := refContact(t, r); got.SalesOpps[0].ClosingStatus == nil || *got.SalesOpps[0].ClosingStatus != engine.OppWon {
			t.Fatalf("after mark %s", r.Body)
		}
		e.wantEvent(t, co1, "contact", "update")
		// Final once set.
		e.put(ana, fmt.Sprintf("/opportunity/%d", c.ID), map[string]any{"closingStatus": 0, "oppId": a}).
			wantErr(t, http.StatusConflict, engine.ErrInvalidTransition)
		// The web app's form: {id} is the opportunity.
		r = e.put(ana, fmt.Sprintf("/opportunity/%d", b), map[string]any{"closingStatus": 0, "oppId": b})
		r.wantStatus(t, http.StatusOK)
		if got := refContact(t, r); got.ID != c.ID || got.SalesOpps[1].ClosingStatus == nil || *got.SalesOpps[1].ClosingStatus != engine.OppLost {
			t.Fatalf("after mark %s", r.Body)
		}
		e.pub.take()

		for _, tc := range []struct {
			name   string
			path   string
			body   any
			status int
			code   engine.Code
		}{
			{"status missing", fmt.Sprintf("/opportunity/%d", c.ID), map[string]any{"oppId": b}, http.StatusBadRequest, engine.ErrValidation},
			{"status 2", fmt.Sprintf("/opportunity/%d", c.ID), map[string]any{"closingStatus": 2, "oppId": b}, http.StatusBadRequest, engine.ErrValidation},
			{"status a word", fmt.Sprintf("/opportunity/%d", c.ID), `{"closingStatus": "won", "oppId": 1}`, http.StatusBadRequest, engine.ErrInvalidJSON},
			{"opportunity of another contact", fmt.Sprintf("/opportunity/%d", other.ID), map[string]any{"closingStatus": 1, "oppId": d}, http.StatusNotFound, engine.ErrNoContactFound},
			{"unknown opportunity", "/opportunity/99999", map[string]any{"closingStatus": 1}, http.StatusNotFound, engine.ErrNoContactFound},
			{"bad id", "/opportunity/x", map[string]any{"closingStatus": 1}, http.StatusNotFound, engine.ErrNoContactFound},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.put(ana, tc.path, tc.body).wantErr(t, tc.status, tc.code)
			})
		}
		e.wantNoEvent(t)
	})
}

func TestRefRoutesUnwired(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tok := e.tok("ana")
		for _, path := range []string{"/contacts", "/queue", "/tags/list", "/quickAnswers/"} {
			e.get(tok, path).wantErr(t, http.StatusServiceUnavailable, engine.ErrUnavailable)
		}
	})
}
