package main

import (
	"testing"
	"time"

	"atende/persistence/db/dbtest"
)

// TestDashboardZoneFollowsSetting checks the wiring of a zone change: an admin's
// PUT /settings/timeZone makes the node rebuild the tenant's dashboard in the new zone
// (its dash_zones row follows), and putting the default back rebuilds it again. The
// rebuild's counters are checked against a recount in persistence/dashboard
// (TestProjectionRezone).
func TestDashboardZoneFollowsSetting(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ta := startApp(t, testConfig(t, dbtest.URL(t, dialect)))
			admin := login(t, ta.base, "admin@atende.local", "admin123")
			var company int64
			if err := ta.app.DB().SQL.QueryRow(`SELECT company_id FROM users WHERE id = $1`, admin.user).Scan(&company); err != nil {
				t.Fatal(err)
			}
			zoneIs := func(want string) {
				t.Helper()
				deadline := time.Now().Add(time.Minute)
				for {
					var zone string
					err := ta.app.DB().SQL.QueryRow(`SELECT zone FROM dash_zones WHERE company_id = $1`, company).Scan(&zone)
					if err == nil && zone == want {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("dash_zones of tenant %d: %q (%v), want %q", company, zone, err, want)
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
			admin.call("PUT", "/settings/timeZone", map[string]any{"value": "Asia/Tokyo"}, 200, nil)
			zoneIs("Asia/Tokyo")
			admin.call("GET", "/dashboard?dateFrom=2026-01-01&dateTo=2026-12-31", nil, 200, nil)
			admin.call("PUT", "/settings/timeZone", map[string]any{"value": "America/Cuiaba"}, 200, nil)
			zoneIs("America/Cuiaba")
		})
	}
}
