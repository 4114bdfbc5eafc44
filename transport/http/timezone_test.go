package httpapi_test

import (
	"atende/persistence/connection"
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// The tenant's time zone is a setting only admins change, validated as an IANA name;
// once set, the tenant's wall-clock inputs and working hours are read there (and
// another tenant keeps its own).
func TestTenantTimeZoneSetting(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newRefEnv(t, d)
		admin, superv := e.tok("admin"), e.tok("superv")
		path := "/settings/" + engine.SettingTimeZone
		e.put(superv, path, map[string]string{"value": "Europe/Lisbon"}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		for _, bad := range []string{"", "Local", "Mars/Olympus", "../../etc/passwd", "/usr/share/zoneinfo/UTC",
			"America/Sao_Paulo\x00", "enabled", "America/Sao Paulo", "-03:00"} {
			fb := e.put(admin, path, map[string]string{"value": bad}).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if fb.Fields["value"] == "" {
				t.Fatalf("%q: %+v", bad, fb)
			}
		}
		e.pub.take()
		r := e.put(admin, path, map[string]string{"value": " Europe/Lisbon "})
		r.wantStatus(t, http.StatusOK)
		var st engine.Setting
		r.json(t, &st)
		if st.Value != "Europe/Lisbon" {
			t.Fatalf("%+v", st)
		}
		e.wantEvent(t, co1, "settings", "update")

		// Working hours are read in Lisbon now: 08:00–12:00 there is 08:00–12:00 UTC in
		// winter, not 12:00–16:00 UTC as in Cuiabá.
		if _, err := e.queues.Update(t.Context(), co1, 11, engine.QueueInput{Name: "Vendas", Color: "#00ff00",
			GreetingMessage: "Oi", StartWork: "08:00", EndWork: "12:00"}); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC).Sub(e.clock.Now()))
		if got := queueNames(t, e.get(e.tok("ana"), "/activeQueues")); !slices.Contains(got, "Vendas") {
			t.Fatalf("09:00 in Lisbon: %q, want Vendas open", got)
		}
		// Tenant 2 keeps Cuiabá: the same hours are closed at 09:00 UTC (05:00 there).
		if _, err := e.queues.Create(t.Context(), co2, engine.QueueInput{Name: "Manhã", Color: "#123456",
			GreetingMessage: "Oi", StartWork: "08:00", EndWork: "12:00"}); err != nil {
			t.Fatal(err)
		}
		if got := queueNames(t, e.get(e.tok("admin2"), "/activeQueues")); slices.Contains(got, "Manhã") {
			t.Fatalf("tenant 2 at 05:00 Cuiabá: %q", got)
		}
		e.clock.Add(4 * time.Hour)
		if got := queueNames(t, e.get(e.tok("admin2"), "/activeQueues")); !slices.Contains(got, "Manhã") {
			t.Fatalf("tenant 2 at 09:00 Cuiabá: %q", got)
		}
	})
}

// A schedule set at 09:00 on the tenant's wall clock is due at 09:00 there on either
// side of a daylight-saving change: Lisbon moves from UTC+0 to UTC+1 on 29 March 2026,
// so 09:00 on the 28th is 09:00 UTC and 09:00 on the 30th is 08:00 UTC. A booking's
// date and time are read in the same zone.
func TestTenantTimeZoneAcrossDST(t *testing.T) {
	eachSchedEnv(t, func(t *testing.T, e *schedEnv) {
		admin := e.tok("admin")
		e.clock.Add(time.Date(2026, 3, 27, 12, 0, 0, 0, time.UTC).Sub(e.clock.Now()))
		e.put(admin, "/settings/"+engine.SettingTimeZone, map[string]string{"value": "Europe/Lisbon"}).wantStatus(t, http.StatusOK)
		conn, err := connection.New(e.d, nil).Create(context.Background(), co1, engine.ConnectionInput{Name: "Zap", Channel: engine.ChannelSocket})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			local string
			want  time.Time
		}{
			{"2026-03-28T09:00", time.Date(2026, 3, 28, 9, 0, 0, 0, time.UTC)},
			{"2026-03-30T09:00", time.Date(2026, 3, 30, 8, 0, 0, 0, time.UTC)},
			// 01:30 on the 29th does not exist in Lisbon (01:00 jumps to 02:00): read as
			// time.Date does, one hour on.
			{"2026-03-29T01:30", time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)},
		} {
			r := e.post(admin, "/scheduledMessages", map[string]any{"phoneNumber": "5565999990001", "wpId": conn.ID,
				"sendAt": c.local, "message": "Bom dia!"})
			r.wantStatus(t, http.StatusCreated)
			var sc engine.Schedule
			r.json(t, &sc)
			if !sc.SendAt.Equal(c.want) {
				t.Errorf("%s in Lisbon stored as %v, want %v", c.local, sc.SendAt, c.want)
			}
		}
	})
}
