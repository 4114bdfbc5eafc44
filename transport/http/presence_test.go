package httpapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/redisstate"
	httpapi "atende/transport/http"
)

// GET /presence: superv and upward see who of their tenant is online, per queue;
// attendants are refused, strangers unauthenticated, and another tenant's users
// never appear.
func TestPresenceRoute(t *testing.T) {
	d := dbtest.Open(t, db.SQLite)
	var pres *redisstate.MemoryPresence
	e := newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
		pres = redisstate.NewMemoryPresence(e.clock)
		deps.Presence = pres
	}))
	ctx := context.Background()
	for _, u := range []struct {
		local  string
		queues []engine.ID
	}{{"ana", []engine.ID{11}}, {"superv", []engine.ID{11, 12}}, {"admin2", []engine.ID{21}}} {
		if err := pres.SetOnline(ctx, e.company(u.local), e.ids[u.local], u.queues, "node-1", time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	e.get("", "/presence").wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)
	e.get(e.tok("ana"), "/presence").wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
	var got struct {
		Users []struct {
			UserID   engine.ID   `json:"userId"`
			QueueIDs []engine.ID `json:"queueIds"`
		} `json:"users"`
		Queues map[string][]engine.ID `json:"queues"`
	}
	r := e.get(e.tok("superv"), "/presence")
	r.wantStatus(t, http.StatusOK)
	r.json(t, &got)
	ana, superv := e.ids["ana"], e.ids["superv"]
	lo, hi := min(ana, superv), max(ana, superv)
	if len(got.Users) != 2 || got.Users[0].UserID != lo || got.Users[1].UserID != hi {
		t.Fatalf("users %+v, want ana and superv in id order", got.Users)
	}
	if q := got.Queues["11"]; len(q) != 2 || q[0] != lo || q[1] != hi || len(got.Queues["12"]) != 1 || got.Queues["21"] != nil {
		t.Fatalf("queues %+v", got.Queues)
	}
}
