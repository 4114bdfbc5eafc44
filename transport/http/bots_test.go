package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
)

func eachBotEnv(t *testing.T, fn func(t *testing.T, e *env)) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) { deps.Bots = store.NewBots(d, e.clock) }))
		fn(t, e)
	})
}

func TestBotRoutes(t *testing.T) {
	eachBotEnv(t, func(t *testing.T, e *env) {
		admin, admin2 := e.tok("admin"), e.tok("admin2")
		wantBotEvent := func(action string) map[string]any {
			t.Helper()
			evs := e.pub.take()
			if len(evs) != 1 || evs[0].Company != co1 || evs[0].Name != "bot" || evs[0].Payload["action"] != action ||
				evs[0].Payload["_permission"] != engine.ActManageBots {
				t.Fatalf("events %+v, want one bot %q held to bots:manage", evs, action)
			}
			return evs[0].Payload
		}

		// Permissions: the business section's profiles (admin, super) only, reads too.
		for profile, local := range refProfiles {
			tok := e.tok(local)
			allowed := profile == engine.ProfileAdmin || profile == engine.ProfileSuper
			if engine.Can(profile, engine.ActManageBots) != allowed {
				t.Fatalf("%s: bots:manage grant is wrong", profile)
			}
			r := e.post(tok, "/bots", map[string]any{"commandBot": fmt.Sprint(len(profile)*7 + 1), "descriptionBot": "p " + profile,
				"commandType": "message", "showMessage": "x"})
			if allowed {
				r.wantStatus(t, http.StatusCreated)
				var b engine.BotLevel
				r.json(t, &b)
				wantBotEvent("create")
				e.del(tok, fmt.Sprintf("/bots/%d", b.ID)).wantStatus(t, http.StatusNoContent)
				wantBotEvent("delete")
				continue
			}
			r.wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			e.get(tok, "/bots").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			e.put(tok, "/bots/1", map[string]any{}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			e.del(tok, "/bots/1").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			e.post(tok, "/bots/reorder", map[string]any{}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		}
		e.get("", "/bots").wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)
		if evs := e.pub.take(); len(evs) != 0 {
			t.Fatalf("refused writes published %+v", evs)
		}

		// A two-level bot.
		create := func(body map[string]any) engine.BotLevel {
			t.Helper()
			r := e.post(admin, "/bots", body)
			r.wantStatus(t, http.StatusCreated)
			var b engine.BotLevel
			r.json(t, &b)
			wantBotEvent("create")
			return b
		}
		sales := create(map[string]any{"commandBot": "1", "descriptionBot": "Vendas", "commandType": "queue", "queueId": 11})
		sup := create(map[string]any{"commandBot": "2", "descriptionBot": "Suporte", "commandType": "menu", "showMessage": "Escolha:"})
		ana := create(map[string]any{"parentId": sup.ID, "commandBot": "1", "descriptionBot": "Ana",
			"commandType": "user", "userId": e.ids["ana"], "queueId": 11})
		if ana.ParentID != sup.ID || ana.UserID != e.ids["ana"] || sales.QueueID != 11 {
			t.Fatalf("created %+v %+v", ana, sales)
		}

		// Section-5 validation, each field named.
		for _, c := range []struct {
			body  string
			field string
			msg   string
		}{
			{`{}`, "commandBot", engine.MsgRequired},
			{`{"commandBot":"1","descriptionBot":"x","commandType":"queue","queueId":11}`, "commandBot", engine.MsgAlreadyExists},
			{`{"commandBot":"abc","descriptionBot":"x","commandType":"menu"}`, "commandBot", engine.MsgInvalidNumber},
			{`{"commandBot":"5","descriptionBot":"` + strings.Repeat("é", 101) + `","commandType":"menu"}`, "descriptionBot", engine.MsgTooLong},
			{`{"commandBot":"5","descriptionBot":"x","commandType":"shell"}`, "commandType", engine.MsgInvalidValue},
			{`{"commandBot":"5","descriptionBot":"x","commandType":"queue","queueId":21}`, "queueId", engine.MsgInvalidValue},
			{`{"commandBot":"5","descriptionBot":"x","commandType":"user","userId":` + fmt.Sprint(e.ids["admin2"]) + `}`, "userId", engine.MsgInvalidValue},
			{`{"parentId":` + fmt.Sprint(sales.ID) + `,"commandBot":"5","descriptionBot":"x","commandType":"menu"}`, "parentId", engine.MsgInvalidValue},
			{`{"commandBot":"5","descriptionBot":"x","commandType":"message"}`, "showMessage", engine.MsgRequired},
			{`{"commandBot":"5","descriptionBot":"a\u0000b","commandType":"menu"}`, "descriptionBot", engine.MsgInvalidValue},
		} {
			b := e.do(req{method: "POST", path: "/bots", token: admin, body: c.body}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if b.Fields[c.field] != c.msg {
				t.Errorf("%s: fields %v, want %s on %s", c.body, b.Fields, c.msg, c.field)
			}
		}
		for _, body := range []string{`not json`, `{"commandBot":1}`, `[]`, `{"commandBot":"1"}{}`} {
			e.do(req{method: "POST", path: "/bots", token: admin, body: body}).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
		}
		if evs := e.pub.take(); len(evs) != 0 {
			t.Fatalf("refused writes published %+v", evs)
		}

		// Tenant isolation.
		e.get(admin2, fmt.Sprintf("/bots/%d", sup.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoBotFound)
		e.put(admin2, fmt.Sprintf("/bots/%d", sup.ID), map[string]any{"commandBot": "1", "descriptionBot": "x",
			"commandType": "menu"}).wantErr(t, http.StatusNotFound, engine.ErrNoBotFound)
		e.del(admin2, fmt.Sprintf("/bots/%d", sup.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoBotFound)
		e.post(admin2, "/bots/reorder", map[string]any{"parentId": 0, "ids": []engine.ID{sales.ID, sup.ID}}).
			wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		var other struct{ Bots []engine.BotLevel }
		e.get(admin2, "/bots").json(t, &other)
		if len(other.Bots) != 0 {
			t.Fatalf("tenant 2 sees %+v", other.Bots)
		}
		e.get(admin, "/bots/abc").wantErr(t, http.StatusNotFound, engine.ErrNoBotFound)

		// Edit, reorder, list, delete with the subtree.
		r := e.put(admin, fmt.Sprintf("/bots/%d", sales.ID), map[string]any{"commandBot": "1", "descriptionBot": "Comercial",
			"commandType": "queue", "queueId": 12})
		r.wantStatus(t, http.StatusOK)
		if p := wantBotEvent("update"); p["bot"].(map[string]any)["descriptionBot"] != "Comercial" {
			t.Fatalf("update event %+v", p)
		}
		r = e.post(admin, "/bots/reorder", map[string]any{"parentId": 0, "ids": []engine.ID{sup.ID, sales.ID}})
		r.wantStatus(t, http.StatusOK)
		wantBotEvent("reorder")
		var list struct{ Bots []engine.BotLevel }
		e.get(admin, "/bots").json(t, &list)
		if len(list.Bots) != 3 || list.Bots[0].ID != sup.ID || list.Bots[0].CommandBot != "1" || list.Bots[1].CommandBot != "2" {
			t.Fatalf("list after reorder %+v", list.Bots)
		}
		e.del(admin, fmt.Sprintf("/bots/%d", sup.ID)).wantStatus(t, http.StatusNoContent)
		wantBotEvent("delete")
		e.get(admin, fmt.Sprintf("/bots/%d", ana.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoBotFound)
		e.del(admin, fmt.Sprintf("/bots/%d", sup.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoBotFound)
	})
}
