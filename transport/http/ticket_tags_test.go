package httpapi_test

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"atende/engine"
)

func TestSyncTags(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		ctx := context.Background()
		vip, _, err := e.tags.Create(ctx, co1, engine.TagInput{Name: "VIP", Color: "#ffd700"})
		if err != nil {
			t.Fatal(err)
		}
		late, _, err := e.tags.Create(ctx, co1, engine.TagInput{Name: "Atrasado"})
		if err != nil {
			t.Fatal(err)
		}
		foreign, _, err := e.tags.Create(ctx, co2, engine.TagInput{Name: "Deles"})
		if err != nil {
			t.Fatal(err)
		}

		t.Run("ids, whole tags and a typed name", func(t *testing.T) {
			e.fixtures(t)
			r := e.post(e.tok("ana"), "/tags/sync", map[string]any{"ticketId": tOpenAna,
				"tags": []any{map[string]any{"id": vip.ID, "name": "VIP", "color": "#ffd700"}, id(late.ID), map[string]any{"name": "Novo cliente"}}})
			r.wantStatus(t, http.StatusOK)
			evs := e.pub.take()
			if len(evs) != 1 || evs[0].Name != "tags" || evs[0].Payload["action"] != "create" || evs[0].Company != co1 {
				t.Fatalf("events %+v", evs)
			}
			all, _ := e.tags.List(ctx, co1, "novo cliente")
			if len(all) != 1 {
				t.Fatalf("typed tag not created: %+v", all)
			}
			c := e.oneCall(t)
			want := engine.SetTags{TagIDs: engine.NormalizeIDs([]engine.ID{vip.ID, late.ID, all[0].ID})}
			if !reflect.DeepEqual(c.Cmd, want) || c.Ticket != tOpenAna {
				t.Fatalf("command %#v, want %#v", c.Cmd, want)
			}
			var tk engine.Ticket
			r.json(t, &tk)
			if tk.ID != tOpenAna || len(tk.Tags) != 3 {
				t.Fatalf("answer %s", r.Body)
			}

			// The same name again finds the tag: no new event.
			e.post(e.tok("ana"), "/tags/sync", map[string]any{"ticketId": tOpenAna, "tags": []any{map[string]any{"name": " novo CLIENTE "}}}).
				wantStatus(t, http.StatusOK)
			if evs := e.pub.take(); len(evs) != 0 {
				t.Fatalf("events %+v", evs)
			}
			if c := e.oneCall(t); !reflect.DeepEqual(c.Cmd, engine.SetTags{TagIDs: []engine.ID{all[0].ID}}) {
				t.Fatalf("command %#v", c.Cmd)
			}
		})
		t.Run("an empty list clears", func(t *testing.T) {
			e.fixtures(t)
			e.post(e.tok("ana"), "/tags/sync", map[string]any{"ticketId": id(tOpenAna), "tags": []any{}}).wantStatus(t, http.StatusOK)
			if c := e.oneCall(t); !reflect.DeepEqual(c.Cmd, engine.SetTags{TagIDs: []engine.ID{}}) {
				t.Fatalf("command %#v", c.Cmd)
			}
		})

		tooMany := make([]any, engine.MaxTicketTags+1)
		for i := range tooMany {
			tooMany[i] = vip.ID
		}
		refused := []struct {
			name   string
			as     string
			body   any
			status int
			code   engine.Code
			field  string
			asked  bool
		}{
			{"no ticket", "ana", map[string]any{"tags": []any{}}, 400, engine.ErrValidation, "ticketId", false},
			{"bad ticket", "ana", map[string]any{"ticketId": "x", "tags": []any{}}, 400, engine.ErrValidation, "ticketId", false},
			{"no tags", "ana", map[string]any{"ticketId": tOpenAna}, 400, engine.ErrValidation, "tags", false},
			{"tags null", "ana", map[string]any{"ticketId": tOpenAna, "tags": nil}, 400, engine.ErrValidation, "tags", false},
			{"zero id", "ana", map[string]any{"ticketId": tOpenAna, "tags": []any{0}}, 400, engine.ErrValidation, "tags", false},
			{"text", "ana", map[string]any{"ticketId": tOpenAna, "tags": []any{"vip"}}, 400, engine.ErrValidation, "tags", false},
			{"empty object", "ana", map[string]any{"ticketId": tOpenAna, "tags": []any{map[string]any{}}}, 400, engine.ErrValidation, "tags", false},
			{"blank name", "ana", map[string]any{"ticketId": tOpenAna, "tags": []any{map[string]any{"name": "  "}}}, 400, engine.ErrValidation, "tags", false},
			{"name too long", "ana", map[string]any{"ticketId": tOpenAna, "tags": []any{map[string]any{"name": strings.Repeat("n", 51)}}}, 400, engine.ErrValidation, "name", false},
			{"too many", "ana", map[string]any{"ticketId": tOpenAna, "tags": tooMany}, 400, engine.ErrValidation, "tags", false},
			{"tags not a list", "ana", `{"ticketId":102,"tags":{"id":1}}`, 400, engine.ErrInvalidJSON, "", false},
			{"unknown tag", "ana", map[string]any{"ticketId": tOpenAna, "tags": []any{987654}}, 404, engine.ErrNoTagFound, "", false},
			{"another tenant's tag", "ana", map[string]any{"ticketId": tOpenAna, "tags": []any{foreign.ID}}, 404, engine.ErrNoTagFound, "", false},
			{"another tenant's ticket", "ana", map[string]any{"ticketId": tOther, "tags": []any{map[string]any{"name": "Vazou"}}}, 404, engine.ErrNoTicketFound, "", false},
			{"another's ticket", "ana", map[string]any{"ticketId": tOpenBrun, "tags": []any{vip.ID}}, 403, engine.ErrNoPermission, "", true},
		}
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				e.fixtures(t)
				b := e.post(e.tok(tc.as), "/tags/sync", tc.body).wantErr(t, tc.status, tc.code)
				if tc.field != "" && b.Fields[tc.field] == "" {
					t.Fatalf("fields %v, want %s", b.Fields, tc.field)
				}
				if calls := e.w.takeCalls(); (len(calls) == 1) != tc.asked || len(calls) > 1 {
					t.Fatalf("commands %+v, asked %v", calls, tc.asked)
				}
			})
		}
		if got, _ := e.tags.List(ctx, co1, "vazou"); len(got) != 0 {
			t.Fatalf("a tag was created for another tenant's ticket: %+v", got)
		}
	})
}
