package readmodel

import (
	"context"
	"fmt"

	"atende/engine"
	"atende/persistence/db"
)

// Outbox implements engine.Outbox over the message read model.
type Outbox struct{ db *db.DB }

var _ engine.Outbox = Outbox{}

// NewOutbox returns the outbox reader of d.
func NewOutbox(d *db.DB) Outbox { return Outbox{db: d} }

// PendingOutbound implements engine.Outbox: messages of ours (not whispers, not echoes
// of the channel's own app, not deleted) at ack 0 on live tickets of the connection.
func (o Outbox) PendingOutbound(ctx context.Context, connectionID engine.ID, limit int) ([]engine.PendingOutbound, error) {
	if limit <= 0 {
		limit = 500
	}
	rows, err := o.db.SQL.QueryContext(ctx, `SELECT m.id, m.ticket_id, t.contact_id, m.body, m.media_type, m.media_url, m.quoted_msg_id
		FROM messages m JOIN tickets t ON t.id = m.ticket_id
		WHERE t.whatsapp_id = $1 AND NOT t.deleted AND m.from_me AND m.ack = 0 AND m.provider_id = ''
			AND m.media_type <> $2 AND NOT m.is_deleted
		ORDER BY m.id LIMIT $3`, connectionID, engine.MediaWhisper, limit)
	if err != nil {
		return nil, fmt.Errorf("pending outbound of connection %d: %w", connectionID, err)
	}
	defer rows.Close()
	var out []engine.PendingOutbound
	for rows.Next() {
		var p engine.PendingOutbound
		if err := rows.Scan(&p.MessageID, &p.TicketID, &p.ContactID, &p.Body, &p.MediaType, &p.MediaURL, &p.QuotedID); err != nil {
			return nil, fmt.Errorf("pending outbound of connection %d: %w", connectionID, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
