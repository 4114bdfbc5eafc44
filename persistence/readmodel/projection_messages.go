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
// in the stream. On PostgreSQL acknowledgements are buffered too (acks), folded per
// message, and written in one statement with the inserts, before any other update, so
// the order of effects is the stream's. One Apply call uses it, from one goroutine.
type messageWriter struct {
	tx      *sql.Tx
	dialect db.Dialect

	// pending holds the buffered rows of messages, each followed by its indexed words;
	// pendingAt finds a buffered row by message id (PostgreSQL only), so that an
	// acknowledgement of a message not written yet is folded into its row.
	pending   [][]any
	pendingAt map[engine.ID]int
	// words feeds PostgreSQL's per-ticket word index (nil on SQLite, whose index is
	// per message and written with the messages).
	words *wordIndex
	// acks holds the buffered acknowledgements by message, in first-seen order
	// (PostgreSQL only).
	acks     map[engine.ID]*ackUpdate
	ackOrder []engine.ID
}

// ackUpdate is a message's buffered acknowledgements, folded. Each ack event moves the
// ack forward only (its time becoming updated_at) and stores the channel's id only
// where none is stored, so applying the highest ack with the time of its first event,
// and the first id any of them carries, leaves the row as applying each in turn does.
type ackUpdate struct {
	ticket     engine.ID
	ack        int
	at         time.Time
	providerID string
}

func (w *messageWriter) ack(ticket engine.ID, e engine.TicketMessageAcked) {
	if i, ok := w.pendingAt[e.MessageID]; ok && w.pending[i][colTicket] == ticket {
		// Not written yet: the row is inserted with the ack, and no UPDATE leaves a
		// dead version of it behind.
		r := w.pending[i]
		if e.Ack > r[colAck].(int) {
			r[colAck], r[colUpdatedAt] = e.Ack, tsArg(w.dialect, e.At)
		}
		if r[colProviderID] == "" {
			r[colProviderID] = e.ProviderID
		}
		return
	}
	u := w.acks[e.MessageID]
	if u == nil {
		if w.acks == nil {
			w.acks = map[engine.ID]*ackUpdate{}
		}
		w.acks[e.MessageID] = &ackUpdate{ticket: ticket, ack: e.Ack, at: e.At, providerID: e.ProviderID}
		w.ackOrder = append(w.ackOrder, e.MessageID)
		return
	}
	if e.Ack > u.ack {
		u.ack, u.at = e.Ack, e.At
	}
	if u.providerID == "" {
		u.providerID = e.ProviderID
	}
}

// ackColumns is how many parameters one folded acknowledgement takes.
const ackColumns = 5

// flushAcks writes the buffered acknowledgements: one UPDATE … FROM (VALUES …) per
// chunk instead of one round trip per ack event.
func (w *messageWriter) flushAcks(ctx context.Context) error {
	ids := w.ackOrder
	w.ackOrder = nil
	per := db.MaxParams(w.dialect) / ackColumns
	for start := 0; start < len(ids); start += per {
		var a args
		var b strings.Builder
		b.WriteString(`UPDATE messages AS m SET
			ack = CASE WHEN m.ack < u.ack THEN u.ack ELSE m.ack END,
			updated_at = CASE WHEN m.ack < u.ack THEN u.at ELSE m.updated_at END,
			provider_id = CASE WHEN m.provider_id = '' THEN u.pid ELSE m.provider_id END
			FROM (VALUES `)
		for i, id := range ids[start:min(start+per, len(ids))] {
			u := w.acks[id]
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(%s::bigint, %s::bigint, %s::integer, %s::timestamptz, %s::text)",
				a.add(id), a.add(u.ticket), a.add(u.ack), a.add(tsArg(w.dialect, u.at)), a.add(u.providerID))
		}
		b.WriteString(`) AS u (id, ticket, ack, at, pid)
			WHERE m.id = u.id AND m.ticket_id = u.ticket AND (m.ack < u.ack OR (u.pid <> '' AND m.provider_id = ''))`)
		if _, err := w.tx.ExecContext(ctx, b.String(), a.list...); err != nil {
			return fmt.Errorf("update acknowledgements: %w", err)
		}
	}
	clear(w.acks)
	return nil
}

var messageCols = []string{"id", "company_id", "ticket_id", "seq", "contact_id", "sender_id", "body", "from_me",
	"read", "media_type", "media_url", "quoted_msg_id", "ack", "is_deleted", "provider_id", "created_at", "updated_at"}

// Positions in a buffered row (messageCols) of the columns later events of the same
// batch change before it is written.
const (
	colTicket     = 2
	colSeq        = 3
	colRead       = 8
	colAck        = 12
	colProviderID = 14
	colUpdatedAt  = 16
)

// messageUpsert is what a message row already stored (a replayed batch) takes from
// the buffered one: only what an acknowledgement folded into it moves, as the
// acknowledgement's own UPDATE would have, and an unchanged row is not written.
const messageUpsert = `ON CONFLICT (id) DO UPDATE SET
	ack = CASE WHEN messages.ack < EXCLUDED.ack THEN EXCLUDED.ack ELSE messages.ack END,
	updated_at = CASE WHEN messages.ack < EXCLUDED.ack THEN EXCLUDED.updated_at ELSE messages.updated_at END,
	provider_id = CASE WHEN messages.provider_id = '' THEN EXCLUDED.provider_id ELSE messages.provider_id END
	WHERE messages.ticket_id = EXCLUDED.ticket_id
		AND (messages.ack < EXCLUDED.ack OR (EXCLUDED.provider_id <> '' AND messages.provider_id = ''))`

// newMessage is one message row to insert.
type newMessage struct {
	id, company, ticket     engine.ID
	seq                     int64
	contact, sender, quoted engine.ID
	body                    string
	fromMe, read            bool
	mediaType, mediaURL     string
	providerID              string
	ack                     int
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
			mediaURL: e.MediaURL, providerID: e.ProviderID, ack: e.Ack, at: e.At})
	case engine.TicketWhisperAdded:
		w.add(newMessage{id: e.MessageID, company: company, ticket: ticket, seq: seq, sender: e.SenderID,
			body: e.Body, fromMe: true, read: true, mediaType: e.Media(), at: e.At})
	case engine.TicketMessageTranslated:
		return w.update(ctx, `UPDATE messages SET translation = $1, translation_language = $2, updated_at = $3
			WHERE id = $4 AND ticket_id = $5`, e.Body, e.Language, tsArg(w.dialect, e.At), e.MessageID, ticket)
	case engine.TicketMessageAcked:
		if w.dialect == db.Postgres {
			w.ack(ticket, e)
			return nil
		}
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
		// this point of the stream are read. Those not written yet are written read
		// (no dead row versions); the UPDATE finds the ones written before.
		for _, r := range w.pending {
			if r[colTicket] == ticket && r[colSeq].(int64) < seq {
				r[colRead] = true
			}
		}
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
	if w.dialect == db.Postgres {
		if w.pendingAt == nil {
			w.pendingAt = map[engine.ID]int{}
		}
		w.pendingAt[m.id] = len(w.pending)
	}
	w.pending = append(w.pending, []any{m.id, m.company, m.ticket, m.seq, m.contact, m.sender, m.body, m.fromMe,
		m.read, m.mediaType, m.mediaURL, m.quoted, m.ack, false, m.providerID,
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
		return w.flushAcks(ctx)
	}
	rows := w.pending
	w.pending = nil
	clear(w.pendingAt)
	if w.dialect == db.Postgres {
		for i, r := range rows {
			rows[i] = r[:len(r)-1]
		}
		if err := db.InsertRows(ctx, w.tx, w.dialect, "messages", messageCols, nil, rows, messageUpsert, nil); err != nil {
			return err
		}
		return w.flushAcks(ctx)
	}
	words := make(map[engine.ID]string, len(rows))
	for i, r := range rows {
		words[r[0].(engine.ID)] = r[len(r)-1].(string)
		rows[i] = r[:len(r)-1]
	}
	var fts [][]any
	err := db.InsertRows(ctx, w.tx, w.dialect, "messages", messageCols, nil, rows, `ON CONFLICT (id) DO NOTHING RETURNING id`,
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
	return db.InsertRows(ctx, w.tx, w.dialect, "messages_fts", []string{"rowid", "words"}, nil, fts, "", nil)
}
