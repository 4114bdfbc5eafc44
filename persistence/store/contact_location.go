package store

import (
	"context"
	"fmt"

	"atende/engine"
	"atende/persistence/db"
)

// Locations implements engine.LocationStore: the contacts of a tenant with a location
// extra info, each with its last ticket, for the client maps. Safe for concurrent use.
type Locations struct {
	db *db.DB
}

var _ engine.LocationStore = (*Locations)(nil)

// NewLocations returns the location reader of d.
func NewLocations(d *db.DB) *Locations { return &Locations{db: d} }

// ContactLocations implements engine.LocationStore. The rows come from the partial
// index contact_extra_info_location (migration 0820) in contact id order; each
// contact's last ticket (newest update, not deleted) is read from the ticket read
// model through tickets_contact. Values that do not parse are counted and, up to
// engine.MaxInvalidLocations per page, listed.
func (s *Locations) ContactLocations(ctx context.Context, companyID, after engine.ID, limit int) (engine.LocationPage, error) {
	if limit <= 0 || limit > engine.LocationPageSize {
		limit = engine.LocationPageSize
	}
	if after < 0 {
		after = 0
	}
	// One more row than asked tells whether there is more; a contact with several
	// location rows may take more than one row, which only makes a page shorter.
	rows, err := s.db.SQL.QueryContext(ctx, `
		SELECT e.contact_id, c.name, c.number, e.value,
			COALESCE((SELECT t.id FROM tickets t
				WHERE t.contact_id = e.contact_id AND t.company_id = e.company_id AND NOT t.deleted
				ORDER BY t.updated_at DESC, t.id DESC LIMIT 1), 0)
		FROM contact_extra_info e
		JOIN contacts c ON c.id = e.contact_id AND c.company_id = e.company_id
		WHERE e.company_id = $1 AND lower(e.name) = 'location' AND e.contact_id > $2
		ORDER BY e.contact_id, e.position
		LIMIT $3`, companyID, after, limit+1)
	if err != nil {
		return engine.LocationPage{}, fmt.Errorf("contact locations: %w", err)
	}
	defer rows.Close()
	page := engine.LocationPage{Contacts: []engine.ContactLocation{}, Invalid: []engine.InvalidLocation{}}
	var last engine.ID
	n := 0
	for rows.Next() {
		var id, ticket engine.ID
		var name, number, value string
		if err := rows.Scan(&id, &name, &number, &value, &ticket); err != nil {
			return engine.LocationPage{}, fmt.Errorf("contact locations: %w", err)
		}
		n++
		if n > limit {
			page.HasMore = true
			break
		}
		if id == last {
			continue // a second location entry of the same contact: the first one counts
		}
		last = id
		if loc, ok := engine.ParseLocation(value); ok {
			page.Contacts = append(page.Contacts, engine.ContactLocation{ContactID: id, Name: name, Number: number,
				Value: value, TicketID: ticket, Location: loc})
			continue
		}
		page.InvalidCount++
		if len(page.Invalid) < engine.MaxInvalidLocations {
			page.Invalid = append(page.Invalid, engine.InvalidLocation{ContactID: id, Name: name, Value: value})
		}
	}
	if err := rows.Err(); err != nil {
		return engine.LocationPage{}, fmt.Errorf("contact locations: %w", err)
	}
	if page.HasMore {
		page.NextCursor = last
	}
	return page, nil
}
