package readmodel

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"atende/engine"
	"atende/persistence/db"
)

// Locator implements engine.ProviderLocator over the message read model (index
// messages_provider, migrations 0350 and 1130).
type Locator struct{ db *db.DB }

var _ engine.ProviderLocator = Locator{}

// NewLocator returns the provider-id locator of d.
func NewLocator(d *db.DB) Locator { return Locator{db: d} }

// LocatorQuery is ByProviderID's query on d. It repeats the partial index's condition
// (provider_id <> ”): SQLite uses a partial index only then, and PostgreSQL's generic
// plan likewise. PostgreSQL's index keys on hashtext(provider_id) (migration 1130), so
// the query asks for the hash and then the id itself.
func LocatorQuery(d db.Dialect) string {
	match := `m.provider_id = $1`
	if d == db.Postgres {
		match = `hashtext(m.provider_id) = hashtext($1) AND ` + match
	}
	return `SELECT m.ticket_id, m.id FROM messages m JOIN tickets t ON t.id = m.ticket_id
	WHERE ` + match + ` AND m.provider_id <> '' AND t.whatsapp_id = $2 ORDER BY m.id DESC LIMIT 1`
}

// ByProviderID implements engine.ProviderLocator: the newest message with providerID
// on a ticket (deleted or not) of connection connectionID.
func (l Locator) ByProviderID(ctx context.Context, connectionID engine.ID, providerID string) (engine.ID, engine.ID, bool, error) {
	if providerID == "" || connectionID <= 0 || !engine.StorableText(providerID) {
		return 0, 0, false, nil // no such message could have been stored
	}
	var ticketID, messageID engine.ID
	err := l.db.SQL.QueryRowContext(ctx, LocatorQuery(l.db.Dialect), providerID, connectionID).Scan(&ticketID, &messageID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("message of connection %d by provider id: %w", connectionID, err)
	}
	return ticketID, messageID, true, nil
}
