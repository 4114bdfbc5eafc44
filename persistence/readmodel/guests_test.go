package readmodel_test

import (
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
)

// TestGuestWalkIsIndexServed: on PostgreSQL, with a tenant of 20,000 tickets of
// which user 1 is the guest of three, the guest part of user 1's open and pending
// tabs reads ticket_guests by its user index and the tickets by their primary key —
// no sequential scan of tickets, whatever the tenant's size.
func TestGuestWalkIsIndexServed(t *testing.T) {
	d := dbtest.Open(t, db.Postgres)
	if _, err := d.SQL.Exec(`INSERT INTO tickets (id, company_id, uuid, status, user_id, queue_id, whatsapp_id,
			contact_id, channel, is_group, unread_messages, last_message, protocol, created_at, updated_at, deleted, version)
		SELECT i, 1, 'u' || i, (ARRAY['open','pending','closed'])[1 + i % 3], CASE WHEN i % 3 = 1 THEN 0 ELSE 2 + i % 50 END,
			i % 7, 1, i, 'whatsapp', FALSE, 0, '', 'p' || i, now() - i * interval '1 minute',
			now() - i * interval '1 minute', FALSE, 1
		FROM generate_series(1, 20000) AS i`); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SQL.Exec(`INSERT INTO ticket_guests (ticket_id, user_id, company_id)
		SELECT i, 1 + i % 400, 1 FROM generate_series(1, 20000, 7) AS i`); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SQL.Exec(`ANALYZE tickets; ANALYZE ticket_guests`); err != nil {
		t.Fatal(err)
	}
	p := engine.Principal{UserID: 1, CompanyID: 1, Profile: engine.ProfileUser, QueueIDs: []engine.ID{3}}
	for _, status := range []string{engine.StatusOpen, engine.StatusPending} {
		query, args := readmodel.GuestWalkQuery(p, engine.TicketQuery{Status: status}, engine.TicketPageSize+1)
		if query == "" {
			t.Fatalf("%s tab: no guest walk", status)
		}
		rows, err := d.SQL.Query("EXPLAIN "+query, args...)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		rows.Close()
		text := strings.Join(plan, "\n")
		if strings.Contains(text, "Seq Scan") || !strings.Contains(text, "ticket_guests_user") {
			t.Errorf("%s tab: the guest walk is not served by ticket_guests_user and the tickets' key:\n%s", status, text)
		}
		t.Logf("%s tab:\n%s", status, text)
	}
}
