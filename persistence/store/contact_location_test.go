package store_test

import (
	"context"
	"fmt"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

// locTicket inserts a ticket read-model row for contact (the columns the map reads).
func locTicket(t *testing.T, d *db.DB, id, company, contact engine.ID, updated string, deleted bool) {
	t.Helper()
	del := "FALSE"
	if deleted {
		del = "TRUE"
	}
	dbtest.MustExec(t, d, fmt.Sprintf(`INSERT INTO tickets (id, company_id, uuid, status, contact_id, channel, created_at, updated_at, deleted, version)
		VALUES (%d, %d, 'u%d', 'open', %d, 'whatsapp', '%s', '%s', %s, 1)`, id, company, id, contact, updated, updated, del))
}

func TestContactLocations(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		refSeedCompanies(t, d)
		contacts, locs := store.NewContacts(d, refClock), store.NewLocations(d)
		mk := func(company engine.ID, name string, extra ...engine.ExtraInfo) engine.Contact {
			t.Helper()
			c, err := contacts.Create(ctx, company, engine.ContactInput{Name: name, ExtraInfo: extra})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		loc := func(v string) engine.ExtraInfo { return engine.ExtraInfo{Name: "location", Value: v} }
		ana := mk(refA, "Ana", engine.ExtraInfo{Name: "cpf", Value: "1"}, loc("-15.6014,-56.0979"))
		bia := mk(refA, "Bia", engine.ExtraInfo{Name: "Location", Value: "https://www.google.com/maps/@-23.55,-46.63,15z"}, loc("1,1"))
		bad := mk(refA, "Caio", loc("<script>alert(1)</script>"))
		mk(refA, "Duda", engine.ExtraInfo{Name: "address", Value: "-10,-50"}) // not a location entry
		mk(refB, "Other tenant", loc("1,2"))
		// Ana's last ticket is 12 (newest update); 13 is newer but deleted.
		locTicket(t, d, 11, refA, ana.ID, "2026-11-20T10:00:00.000000Z", false)
		locTicket(t, d, 12, refA, ana.ID, "2026-11-21T10:00:00.000000Z", false)
		locTicket(t, d, 13, refA, ana.ID, "2026-11-22T10:00:00.000000Z", true)

		page, err := locs.ContactLocations(ctx, refA, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Contacts) != 2 || page.HasMore || page.NextCursor != 0 {
			t.Fatalf("page %+v, want Ana and Bia only", page)
		}
		a, b := page.Contacts[0], page.Contacts[1]
		if a.ContactID != ana.ID || a.Lat != -15.6014 || a.Lng != -56.0979 || a.TicketID != 12 || a.Name != "Ana" {
			t.Errorf("Ana = %+v", a)
		}
		// Bia's first location entry (by position) counts; she has no ticket.
		if b.ContactID != bia.ID || b.Lat != -23.55 || b.Lng != -46.63 || b.TicketID != 0 {
			t.Errorf("Bia = %+v", b)
		}
		if page.InvalidCount != 1 || len(page.Invalid) != 1 || page.Invalid[0].ContactID != bad.ID ||
			page.Invalid[0].Value != "<script>alert(1)</script>" {
			t.Errorf("invalid = %d %+v, want Caio's value", page.InvalidCount, page.Invalid)
		}

		// Tenant B sees only its own contact.
		other, err := locs.ContactLocations(ctx, refB, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(other.Contacts) != 1 || other.Contacts[0].Name != "Other tenant" {
			t.Errorf("tenant B page %+v", other)
		}

		// Paging: one row per page walks every contact exactly once.
		var seen []engine.ID
		after := engine.ID(0)
		for i := 0; ; i++ {
			if i > 10 {
				t.Fatal("paging does not end")
			}
			p, err := locs.ContactLocations(ctx, refA, after, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range p.Contacts {
				seen = append(seen, c.ContactID)
			}
			for _, c := range p.Invalid {
				seen = append(seen, c.ContactID)
			}
			if !p.HasMore {
				break
			}
			after = p.NextCursor
		}
		if fmt.Sprint(seen) != fmt.Sprint([]engine.ID{ana.ID, bia.ID, bad.ID}) {
			t.Errorf("paged walk saw %v", seen)
		}
	})
}
