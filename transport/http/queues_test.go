package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"atende/engine"
)

func queueNames(t *testing.T, r resp) []string {
	t.Helper()
	r.wantStatus(t, http.StatusOK)
	var qs []engine.Queue
	r.json(t, &qs)
	names := []string{}
	for _, q := range qs {
		names = append(names, q.Name)
	}
	return names
}

func TestQueueRoutes(t *testing.T) {
	eachRefEnv(t, func(t *testing.T, e *refEnv) {
		// Fixtures: co1 has Vendas (11, #00ff00) and Suporte (12, #0000ff); co2 has 21.
		ana, superv, admin2 := e.tok("ana"), e.tok("superv"), e.tok("admin2")
		if got := queueNames(t, e.get(ana, "/queue")); !slices.Equal(got, []string{"Suporte", "Vendas"}) {
			t.Fatalf("GET /queue %q", got)
		}
		if got := queueNames(t, e.get(admin2, "/queue/")); !slices.Equal(got, []string{"Outra"}) {
			t.Fatalf("tenant 2 GET /queue %q", got)
		}
		body := map[string]any{"name": "Financeiro", "color": "#388E3C", "greetingMessage": "Olá! Escolha uma opção.",
			"startWork": "08:00", "endWork": "18:00", "absenceMessage": "Fora do horário", "nps": true,
			"encouragingMessage": "Obrigado!", "ratingQuestion": " Nota? 1, 2 ou 3 ", "url": "https://example.com"}

		t.Run("create needs queues:manage", func(t *testing.T) {
			for _, profile := range []string{engine.ProfileUser, engine.ProfileUserPlus} {
				e.post(e.tok(refProfiles[profile]), "/queue", body).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			}
			e.wantNoEvent(t)
			r := e.post(superv, "/queue", body)
			r.wantStatus(t, http.StatusCreated)
			var q engine.Queue
			r.json(t, &q)
			if q.ID == 0 || q.Color != "#388e3c" || !q.NPS || q.StartWork != "08:00" || q.URL != "https://example.com" ||
				q.RatingQuestion != "Nota? 1, 2 ou 3" {
				t.Fatalf("created %s", r.Body)
			}
			e.wantEvent(t, co1, "queue", "create")
		})

		t.Run("validation", func(t *testing.T) {
			for _, tc := range []struct {
				name  string
				edit  map[string]any
				field string
				msg   string
			}{
				{"greeting required once the tenant has queues", map[string]any{"greetingMessage": "  "}, "greetingMessage", engine.MsgRequired},
				{"name required", map[string]any{"name": ""}, "name", engine.MsgRequired},
				{"name too short", map[string]any{"name": "F"}, "name", engine.MsgTooShort},
				{"name too long", map[string]any{"name": strings.Repeat("f", 51)}, "name", engine.MsgTooLong},
				{"colour", map[string]any{"color": "green"}, "color", engine.MsgInvalidColor},
				{"hours", map[string]any{"startWork": "8h"}, "startWork", engine.MsgInvalidTime},
				{"url", map[string]any{"url": "ftp://x"}, "url", engine.MsgInvalidValue},
				{"rating question without its answers", map[string]any{"ratingQuestion": "Gostou?"}, "ratingQuestion", engine.MsgInvalidValue},
				{"rating question too long", map[string]any{"ratingQuestion": "1 2 3" + strings.Repeat("?", engine.RatingQuestionMax)}, "ratingQuestion", engine.MsgTooLong},
				{"rating question with a NUL", map[string]any{"ratingQuestion": "1 2 3\u0000"}, "ratingQuestion", engine.MsgInvalidValue},
			} {
				t.Run(tc.name, func(t *testing.T) {
					in := map[string]any{}
					for k, v := range body {
						in[k] = v
					}
					in["color"] = "#123456"
					for k, v := range tc.edit {
						in[k] = v
					}
					b := e.post(superv, "/queue", in).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
					if b.Fields[tc.field] != tc.msg {
						t.Fatalf("fields %v", b.Fields)
					}
				})
			}
			for _, raw := range []string{`{"name": 123, "color": "#123456"}`, `{"name": "Fila", "color": "#123456", "nps": "yes"}`, `{`, `"fila"`,
				`{"name": "Fila", "color": "#123456", "ratingQuestion": ["1 2 3"]}`} {
				e.post(superv, "/queue", raw).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			}
			e.wantNoEvent(t)
		})

		t.Run("colour unique per tenant", func(t *testing.T) {
			in := map[string]any{"name": "Nova", "color": "#00FF00", "greetingMessage": "Oi"}
			e.post(superv, "/queue", in).wantErr(t, http.StatusConflict, engine.ErrQueueColorAlreadyExists)
			e.put(superv, "/queue/12", in).wantErr(t, http.StatusConflict, engine.ErrQueueColorAlreadyExists)
			e.wantNoEvent(t)
			in["color"] = "#0000ff"
			e.post(admin2, "/queue", in).wantStatus(t, http.StatusCreated)
			e.wantEvent(t, co2, "queue", "create")
		})

		t.Run("get and update", func(t *testing.T) {
			r := e.get(ana, "/queue/11")
			r.wantStatus(t, http.StatusOK)
			if r.obj(t)["name"] != "Vendas" {
				t.Fatalf("GET /queue/11 %s", r.Body)
			}
			e.get(ana, "/queue/zz").wantErr(t, http.StatusNotFound, engine.ErrNoQueueFound)
			in := map[string]any{"name": "Vendas B2B", "color": "#00ff00", "greetingMessage": "Oi"}
			e.put(e.tok("bruno"), "/queue/11", in).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			r = e.put(e.tok("manager"), "/queue/11", in)
			r.wantStatus(t, http.StatusOK)
			if r.obj(t)["name"] != "Vendas B2B" {
				t.Fatalf("PUT %s", r.Body)
			}
			e.wantEvent(t, co1, "queue", "update")
		})

		t.Run("other tenant cannot reach it", func(t *testing.T) {
			in := map[string]any{"name": "Roubada", "color": "#abcdef", "greetingMessage": "Oi"}
			e.get(admin2, "/queue/11").wantErr(t, http.StatusNotFound, engine.ErrNoQueueFound)
			e.put(admin2, "/queue/11", in).wantErr(t, http.StatusNotFound, engine.ErrNoQueueFound)
			e.del(admin2, "/queue/11").wantErr(t, http.StatusNotFound, engine.ErrNoQueueFound)
			e.wantNoEvent(t)
			if q, err := e.queues.Get(context.Background(), co1, 11); err != nil || q.Name != "Vendas B2B" {
				t.Fatalf("queue changed: %+v %v", q, err)
			}
		})

		t.Run("delete", func(t *testing.T) {
			e.del(ana, "/queue/12").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			e.del(superv, "/queue/12").wantStatus(t, http.StatusNoContent)
			if p := e.wantEvent(t, co1, "queue", "delete"); p["queueId"].(float64) != 12 {
				t.Fatalf("event %v", p)
			}
			e.get(ana, "/queue/12").wantErr(t, http.StatusNotFound, engine.ErrNoQueueFound)
			// Bruno was in queue 12 and is in none now.
			u, err := e.users.Get(context.Background(), co1, e.ids["bruno"])
			if err != nil || len(u.Queues) != 0 {
				t.Fatalf("bruno's queues %+v %v", u.Queues, err)
			}
			e.del(superv, "/queue/12").wantErr(t, http.StatusNotFound, engine.ErrNoQueueFound)
		})
	})
}

func TestActiveQueuesRoute(t *testing.T) {
	eachRefEnv(t, func(t *testing.T, e *refEnv) {
		ctx := context.Background()
		// Fixture clock: 12:00 UTC, 08:00 in Cuiabá (UTC-4).
		for _, q := range []engine.QueueInput{
			{Name: "Vendas", Color: "#00ff00", GreetingMessage: "Oi", StartWork: "08:00", EndWork: "12:00"},
			{Name: "Suporte", Color: "#0000ff", GreetingMessage: "Oi", StartWork: "13:00", EndWork: "18:00"},
		} {
			id := engine.ID(11)
			if q.Name == "Suporte" {
				id = 12
			}
			if _, err := e.queues.Update(ctx, co1, id, q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.queues.Create(ctx, co1, engine.QueueInput{Name: "Plantão", Color: "#ff0000", GreetingMessage: "Oi", StartWork: "22:00", EndWork: "06:00"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.queues.Create(ctx, co1, engine.QueueInput{Name: "Geral", Color: "#999999", GreetingMessage: "Oi"}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			localTime string
			want      []string
		}{
			{"08:00", []string{"Geral", "Vendas"}},
			{"11:59", []string{"Geral", "Vendas"}},
			{"12:00", []string{"Geral"}},
			{"13:30", []string{"Geral", "Suporte"}},
			{"23:00", []string{"Geral", "Plantão"}},
			{"05:00", []string{"Geral", "Plantão"}},
		} {
			t.Run(tc.localTime, func(t *testing.T) {
				local, _ := time.Parse("15:04", tc.localTime)
				target := time.Date(2026, 11, 23, local.Hour()+4, local.Minute(), 0, 0, time.UTC) // Cuiabá is UTC-4
				e.clock.Add(target.Sub(e.clock.Now()))
				if got := queueNames(t, e.get(e.tok("ana"), "/activeQueues")); !slices.Equal(got, tc.want) {
					t.Fatalf("at %s in Cuiabá: %q, want %q", tc.localTime, got, tc.want)
				}
			})
		}
	})
}
