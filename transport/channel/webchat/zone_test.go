package webchat

import (
	"context"
	"sync/atomic"
	"testing"

	"atende/engine"
)

// The welcome announces the tenant's own time zone (its timeZone setting, through
// Config.ZoneName), so the widget shows times as that tenant's attendants see them.
func TestWelcomeAnnouncesTenantZone(t *testing.T) {
	var asked atomic.Int64
	e := newEnv(t, func(c *Config) {
		c.ZoneName = func(_ context.Context, companyID engine.ID) string {
			asked.Store(int64(companyID))
			return "Europe/Lisbon"
		}
	})
	_, w := e.connect("")
	if w.TimeZone != "Europe/Lisbon" || engine.ID(asked.Load()) != e.conn.CompanyID {
		t.Fatalf("welcome zone %q asked for tenant %d, want Europe/Lisbon for %d", w.TimeZone, asked.Load(), e.conn.CompanyID)
	}
}
