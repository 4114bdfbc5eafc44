package schedule_test

import (
	"context"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/schedule"
	"atende/persistence/store"
)

// The message variables of the hour and the greeting are rendered, at send time, in
// the tenant's own zone (its timeZone setting), not in the default one.
func TestFireRendersInTenantZone(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		seed(t, d)
		settings := store.NewSettings(d, nil)
		if _, err := settings.Set(context.Background(), tenantA, engine.SettingTimeZone, "Asia/Tokyo"); err != nil {
			t.Fatal(err)
		}
		sender := newSender()
		s, err := schedule.New(d, schedule.Config{
			IDs: db.NewIDs(d, 16), Contacts: store.NewContacts(d, nil), Sender: sender, Settings: settings,
		})
		if err != nil {
			t.Fatal(err)
		}
		start(t, d, s)
		in := message("5565999990001", time.Now().Add(time.Second))
		in.Message = "{{hour}} {{ms}}"
		before := time.Now()
		sc, err := s.Create(context.Background(), tenantA, in)
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, s, sc.ID, engine.ScheduleSent)
		sender.mu.Lock()
		body, firedAt := sender.bodies[sc.MessageID], sender.at[sc.MessageID]
		sender.mu.Unlock()
		tokyo := engine.LoadZone("Asia/Tokyo")
		ok := false
		// Rendered between the creation and the delivery: any minute in between.
		for at := before.Truncate(time.Minute); !at.After(firedAt); at = at.Add(time.Minute) {
			if body == at.In(tokyo).Format("15:04")+" "+engine.Greeting(at, tokyo) {
				ok = true
			}
		}
		if !ok {
			t.Fatalf("body %q, want the hour and greeting of %v in Tokyo", body, firedAt)
		}
	})
}
