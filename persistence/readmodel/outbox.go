package readmodel

import (
	"context"
	"fmt"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// Outbox implements engine.Outbox over the message read model.
type Outbox struct{ db *db.DB }

var _ engine.Outbox = Outbox{}

// NewOutbox returns the outbox reader of d.
func NewOutbox(d *db.DB) Outbox { return Outbox{db: d} }

// pendingOutbound is the condition on messages m of tickets t for "waits to be sent by
// connection $1": ours (not whispers nor AI answers, which stay with the attendants; not echoes of the channel's own app, which carry
// a provider id), at ack 0, not deleted, not refused for good by the channel, on a live
// ticket of the connection. PendingOutbound lists these; SendAttempts.Prune keeps
// their rows.
const pendingOutbound = `t.whatsapp_id = $1 AND NOT t.deleted AND m.from_me AND m.ack = 0 AND m.provider_id = ''
	AND m.media_type NOT IN ('` + engine.MediaWhisper + `', '` + engine.MediaChatGPT + `') AND NOT m.is_deleted AND NOT m.failed`

// PendingOutbound implements engine.Outbox: the messages that wait to be sent
// (pendingOutbound), oldest first.
func (o Outbox) PendingOutbound(ctx context.Context, connectionID engine.ID, limit int) ([]engine.PendingOutbound, error) {
	if limit <= 0 {
		limit = 500
	}
	rows, err := o.db.SQL.QueryContext(ctx, `SELECT m.id, m.ticket_id, t.contact_id, m.body, m.media_type, m.media_url, m.quoted_msg_id
		FROM messages m JOIN tickets t ON t.id = m.ticket_id
		WHERE `+pendingOutbound+`
		ORDER BY m.id LIMIT $2`, connectionID, limit)
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

// SendAttempts implements engine.SendAttemptLog over the send_attempts table
// (migration 0370).
type SendAttempts struct{ db *db.DB }

var _ engine.SendAttemptLog = SendAttempts{}

// NewSendAttempts returns the send attempt log of d.
func NewSendAttempts(d *db.DB) SendAttempts { return SendAttempts{db: d} }

// RecordAttempt implements engine.SendAttemptLog: one INSERT, a no-op when the row is
// there already.
func (s SendAttempts) RecordAttempt(ctx context.Context, connectionID, messageID engine.ID, at time.Time) error {
	_, err := s.db.SQL.ExecContext(ctx, `INSERT INTO send_attempts (connection_id, message_id, attempted_at)
		VALUES ($1, $2, $3) ON CONFLICT (connection_id, message_id) DO NOTHING`, connectionID, messageID, at.UnixMicro())
	if err != nil {
		return fmt.Errorf("record send attempt of message %d: %w", messageID, err)
	}
	return nil
}

// ForgetAttempt implements engine.SendAttemptLog.
func (s SendAttempts) ForgetAttempt(ctx context.Context, connectionID, messageID engine.ID) error {
	_, err := s.db.SQL.ExecContext(ctx, `DELETE FROM send_attempts WHERE connection_id = $1 AND message_id = $2`,
		connectionID, messageID)
	if err != nil {
		return fmt.Errorf("forget send attempt of message %d: %w", messageID, err)
	}
	return nil
}

// Attempted implements engine.SendAttemptLog.
func (s SendAttempts) Attempted(ctx context.Context, connectionID engine.ID, messageIDs []engine.ID) (map[engine.ID]bool, error) {
	out := map[engine.ID]bool{}
	if len(messageIDs) == 0 {
		return out, nil
	}
	for _, chunk := range chunks(messageIDs, idChunk(s.db.Dialect)) {
		a := args{list: []any{connectionID}}
		q := `SELECT message_id FROM send_attempts WHERE connection_id = $1 AND ` + a.inList("message_id", chunk)
		if err := s.attempted(ctx, q, a.list, out); err != nil {
			return nil, fmt.Errorf("send attempts of connection %d: %w", connectionID, err)
		}
	}
	return out, nil
}

// attempted runs q (a SELECT of message ids) and marks each id it returns in out.
func (s SendAttempts) attempted(ctx context.Context, q string, a []any, out map[engine.ID]bool) error {
	rows, err := s.db.SQL.QueryContext(ctx, q, a...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id engine.ID
		if err := rows.Scan(&id); err != nil {
			return err
		}
		out[id] = true
	}
	return rows.Err()
}

// Prune implements engine.SendAttemptLog: a message still waits to be sent when
// PendingOutbound would list it; the rows of all others recorded before before go.
func (s SendAttempts) Prune(ctx context.Context, connectionID engine.ID, before time.Time) (int64, error) {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM send_attempts
		WHERE connection_id = $1 AND attempted_at < $2 AND NOT EXISTS (
			SELECT 1 FROM messages m JOIN tickets t ON t.id = m.ticket_id
			WHERE m.id = send_attempts.message_id AND `+pendingOutbound+`)`,
		connectionID, before.UnixMicro())
	if err != nil {
		return 0, fmt.Errorf("prune send attempts of connection %d: %w", connectionID, err)
	}
	return res.RowsAffected()
}
