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

// The other variables are read at send time too, in the one query a fire makes: the
// contact's name, e-mail and number, the ticket's protocol and the scheduling
// attendant's name. A contact gone before its message falls due ends the schedule in
// error with the contact's error code, without a send.
func TestFireRendersContactTicketAndUser(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		seed(t, d)
		contacts := store.NewContacts(d, nil)
		c, err := contacts.Create(ctx, tenantA, engine.ContactInput{Name: "Maria Souza", Number: "5565999990002",
			Email: "maria@cliente.test"})
		if err != nil {
			t.Fatal(err)
		}
		gone, err := contacts.Create(ctx, tenantA, engine.ContactInput{Name: "Ido Embora", Number: "5565999990003"})
		if err != nil {
			t.Fatal(err)
		}
		dbtest.MustExec(t, d, `INSERT INTO tickets (id, company_id, uuid, status, user_id, queue_id, contact_id, channel,
			protocol, created_at, updated_at, version) VALUES (900, 1, 'u900', 'open', 10, 0, $1, 'whatsapp', '2026X77',
			'2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z', 1)`, c.ID)
		sender := newSender()
		s := newScheduler(t, d, sender)
		start(t, d, s)
		at := time.Now().Add(time.Second)
		sc, err := s.Create(ctx, tenantA, engine.ScheduleInput{Kind: engine.ScheduleMessage, ContactID: c.ID, TicketID: 900,
			Message: "{{firstName}}|{{name}}|{{email}}|{{phone}}|{{protocol}}|{{ticket_id}}|{{user}}", UserID: 10, SendAt: at})
		if err != nil {
			t.Fatal(err)
		}
		lost, err := s.Create(ctx, tenantA, engine.ScheduleInput{Kind: engine.ScheduleMessage, ContactID: gone.ID,
			Message: "Olá {{name}}", UserID: 10, SendAt: at})
		if err != nil {
			t.Fatal(err)
		}
		dbtest.MustExec(t, d, `DELETE FROM contacts WHERE id = $1`, gone.ID)

		waitStatus(t, s, sc.ID, engine.ScheduleSent)
		sender.mu.Lock()
		body := sender.bodies[sc.MessageID]
		sender.mu.Unlock()
		if want := "Maria|Maria Souza|maria@cliente.test|5565999990002|2026X77|900|Ana"; body != want {
			t.Fatalf("body %q, want %q", body, want)
		}
		failed := waitStatus(t, s, lost.ID, engine.ScheduleError)
		if failed.ErrorMessage != string(engine.ErrNoContactFound) || sender.count(lost.MessageID) != 0 {
			t.Fatalf("schedule of a deleted contact: %q, sent %d times", failed.ErrorMessage, sender.count(lost.MessageID))
		}
	})
}
