package readmodel

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// maxIndexedWords bounds the words indexed per message (a pasted document is still
// found by its first few thousand words).
const maxIndexedWords = 2000

// messageWriter turns the message events of a batch into writes of the messages table
// and the word index. Inserts are buffered into multi-row statements; the buffer is
// written before any update, so an update always finds the messages created before it
// in the stream. One Apply call uses it, from one goroutine.
type messageWriter struct {
	tx      *sql.Tx
	dialect db.Dialect

	// pending holds the buffered rows of messages, each followed by its indexed words.
	pending [][]any
	// words feeds PostgreSQL's per-ticket word index (nil on SQLite, whose index is
	// per message and written with the messages).
	words *wordIndex
}

var messageCols = []string{"id", "company_id", "ticket_id", "seq", "contact_id", "sender_id", "body", "from_me",
	"read", "media_type", "media_url", "quoted_msg_id", "ack", "is_deleted", "provider_id", "created_at", "updated_at"}

// newMessage is one message row to insert.
type newMessage struct {
	id, company, ticket     engine.ID
	seq                     int64
	contact, sender, quoted engine.ID
	body                    string
	fromMe, read            bool
	mediaType, mediaURL     string
	providerID              string
	at                      time.Time
}

// apply records the message side of event te (stream version seq) of ticket.
func (w *messageWriter) apply(ctx context.Context, ticket, company, contact engine.ID, seq int64, te engine.TicketEvent) error {
	switch e := te.(type) {
	case engine.TicketMessageReceived:
		w.add(newMessage{id: e.MessageID, company: company, ticket: ticket, seq: seq, contact: contact,
			quoted: e.QuotedID, body: e.Body, mediaType: e.MediaType, mediaURL: e.MediaURL,
			providerID: e.ProviderID, at: e.At})
	case engine.TicketMessageSent:
		w.add(newMessage{id: e.MessageID, company: company, ticket: ticket, seq: seq, sender: e.SenderID,
			quoted: e.QuotedID, body: e.Body, fromMe: true, read: true, mediaType: e.MediaType,
			mediaURL: e.MediaURL, providerID: e.ProviderID, at: e.At})
	case engine.TicketWhisperAdded:
		w.add(newMessage{id: e.MessageID, company: company, ticket: ticket, seq: seq, sender: e.SenderID,
			body: e.Body, fromMe: true, read: true, mediaType: e.Media(), at: e.At})
	case engine.TicketMessageTranslated:
		return w.update(ctx, `UPDATE messages SET translation = $1, translation_language = $2, updated_at = $3
			WHERE id = $4 AND ticket_id = $5`, e.Body, e.Language, tsArg(w.dialect, e.At), e.MessageID, ticket)
	case engine.TicketMessageAcked:
		// One statement for two independent moves: the ack only forward (with its
		// updated_at), and the channel's id of our message, when the event has one and
		// none is stored yet, for ProviderLocator (receipts, quotes and deletions after
		// the connection actor's memory is gone). SET reads the row before the update.
		return w.update(ctx, `UPDATE messages SET
			ack = CASE WHEN ack < $1 THEN $1 ELSE ack END,
			updated_at = CASE WHEN ack < $1 THEN $2 ELSE updated_at END,
			provider_id = CASE WHEN provider_id = '' THEN $5 ELSE provider_id END
			WHERE id = $3 AND ticket_id = $4 AND (ack < $1 OR ($5 <> '' AND provider_id = ''))`,
			e.Ack, tsArg(w.dialect, e.At), e.MessageID, ticket, e.ProviderID)
	case engine.TicketMessageFailed:
		return w.update(ctx, `UPDATE messages SET failed = TRUE, updated_at = $1 WHERE id = $2 AND ticket_id = $3`,
			tsArg(w.dialect, e.At), e.MessageID, ticket)
	case engine.TicketMessageDeleted:
		if w.words != nil {
			w.words.deleted(ticket, company, e.MessageID)
		}
		return w.update(ctx, `UPDATE messages SET is_deleted = TRUE, updated_at = $1 WHERE id = $2 AND ticket_id = $3`,
			tsArg(w.dialect, e.At), e.MessageID, ticket)
	case engine.TicketRead, engine.TicketResolved:
		// Both leave the ticket with nothing unread; the customer's messages before
		// this point of the stream are read.
		return w.update(ctx, `UPDATE messages SET read = TRUE WHERE ticket_id = $1 AND read = FALSE AND seq < $2`,
			ticket, seq)
	}
	return nil
}

func (w *messageWriter) add(m newMessage) {
	words := engine.SearchWords(m.body)
	if len(words) > maxIndexedWords {
		words = words[:maxIndexedWords]
	}
	w.pending = append(w.pending, []any{m.id, m.company, m.ticket, m.seq, m.contact, m.sender, m.body, m.fromMe,
		m.read, m.mediaType, m.mediaURL, m.quoted, engine.AckPending, false, m.providerID,
		tsArg(w.dialect, m.at), tsArg(w.dialect, m.at), strings.Join(words, " ")})
	if w.words != nil {
		w.words.add(m.ticket, m.company, m.seq, words)
	}
}

func (w *messageWriter) update(ctx context.Context, query string, a ...any) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	if _, err := w.tx.ExecContext(ctx, query, a...); err != nil {
		return fmt.Errorf("update messages: %w", err)
	}
	return nil
}

// flush inserts the buffered messages. A message id already stored (a replayed
// batch) is left as it is; on SQLite only the rows actually inserted enter
// messages_fts, so the index never holds a message twice.
func (w *messageWriter) flush(ctx context.Context) error {
	if len(w.pending) == 0 {
		return nil
	}
	rows := w.pending
	w.pending = nil
	if w.dialect == db.Postgres {
		for i, r := range rows {
			rows[i] = r[:len(r)-1]
		}
		return insertRows(ctx, w.tx, w.dialect, "messages", messageCols, nil, rows, `ON CONFLICT (id) DO NOTHING`, nil)
	}
	words := make(map[engine.ID]string, len(rows))
	for i, r := range rows {
		words[r[0].(engine.ID)] = r[len(r)-1].(string)
		rows[i] = r[:len(r)-1]
	}
	var fts [][]any
	err := insertRows(ctx, w.tx, w.dialect, "messages", messageCols, nil, rows, `ON CONFLICT (id) DO NOTHING RETURNING id`,
		func(rs *sql.Rows) error {
			for rs.Next() {
				var id engine.ID
				if err := rs.Scan(&id); err != nil {
					return err
				}
				if ws := words[id]; ws != "" {
					fts = append(fts, []any{id, ws})
				}
			}
			return nil
		})
	if err != nil {
		return err
	}
	return insertRows(ctx, w.tx, w.dialect, "messages_fts", []string{"rowid", "words"}, nil, fts, "", nil)
}
