package readmodel

import (
	"context"
	"fmt"
	"sort"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

const ticketCols = `id, company_id, uuid, status, user_id, queue_id, whatsapp_id, contact_id, channel,
	is_group, unread_messages, last_message, protocol, created_at, updated_at, deleted, version, pending_since`

// loadTickets reads the stored rows of ids (absent ids have no entry).
func loadTickets(ctx context.Context, q querier, d db.Dialect, ids []engine.ID) (map[engine.ID]*ticketRow, error) {
	out := make(map[engine.ID]*ticketRow, len(ids))
	for _, part := range chunks(ids, idChunk(d)) {
		var a args
		rs, err := q.QueryContext(ctx, `SELECT `+ticketCols+` FROM tickets WHERE `+a.inList("id", part), a.list...)
		if err != nil {
			return nil, fmt.Errorf("load tickets: %w", err)
		}
		for rs.Next() {
			var s engine.TicketState
			row := &ticketRow{}
			if err := rs.Scan(&s.ID, &s.CompanyID, &s.UUID, &s.Status, &s.UserID, &s.QueueID, &s.ConnectionID,
				&s.ContactID, &s.Channel, &s.IsGroup, &s.UnreadMessages, &s.LastMessage, &s.Protocol,
				timeCol{&s.CreatedAt}, timeCol{&s.UpdatedAt}, &s.Deleted, &s.Version, timeCol{&row.pendingSince}); err != nil {
				rs.Close()
				return nil, fmt.Errorf("load tickets: %w", err)
			}
			row.state = s
			row.before, row.counted = row.cell()
			out[s.ID] = row
		}
		err = rs.Err()
		rs.Close()
		if err != nil {
			return nil, fmt.Errorf("load tickets: %w", err)
		}
	}
	return out, nil
}

// writeTickets stores the rows an event changed: the ticket (upserted, and only over
// an older version), its tag set when a ticket.tags_set was folded, and the moves
// between ticket_counts cells.
func writeTickets(ctx context.Context, q querier, d db.Dialect, rows map[engine.ID]*ticketRow) error {
	ids := make([]engine.ID, 0, len(rows))
	for id, r := range rows {
		if r.dirty && r.state.Status != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })

	values := make([][]any, 0, len(ids))
	deltas := map[cell]int64{}
	var retag []engine.ID
	var tagRows [][]any
	for _, id := range ids {
		r := rows[id]
		s := r.state
		values = append(values, []any{s.ID, s.CompanyID, s.UUID, s.Status, s.UserID, s.QueueID, s.ConnectionID,
			s.ContactID, s.Channel, s.IsGroup, s.UnreadMessages, s.LastMessage, s.Protocol,
			tsArg(d, s.CreatedAt), tsArg(d, s.UpdatedAt), s.Deleted, s.Version, pendingArg(d, r.pendingSince)})
		after, counts := r.cell()
		if r.counted {
			deltas[r.before]--
		}
		if counts {
			deltas[after]++
		}
		if r.tagsChanged {
			retag = append(retag, id)
			for _, tag := range s.TagIDs {
				tagRows = append(tagRows, []any{id, tag, s.CompanyID})
			}
		}
	}
	err := db.InsertRows(ctx, q, d, "tickets", []string{"id", "company_id", "uuid", "status", "user_id", "queue_id",
		"whatsapp_id", "contact_id", "channel", "is_group", "unread_messages", "last_message", "protocol",
		"created_at", "updated_at", "deleted", "version", "pending_since"}, nil, values,
		`ON CONFLICT (id) DO UPDATE SET company_id = excluded.company_id, uuid = excluded.uuid,
			status = excluded.status, user_id = excluded.user_id, queue_id = excluded.queue_id,
			whatsapp_id = excluded.whatsapp_id, contact_id = excluded.contact_id, channel = excluded.channel,
			is_group = excluded.is_group, unread_messages = excluded.unread_messages,
			last_message = excluded.last_message, protocol = excluded.protocol,
			created_at = excluded.created_at, updated_at = excluded.updated_at,
			deleted = excluded.deleted, version = excluded.version, pending_since = excluded.pending_since
		WHERE tickets.version < excluded.version`, nil)
	if err != nil {
		return err
	}

	for _, part := range chunks(retag, idChunk(d)) {
		var a args
		if _, err := q.ExecContext(ctx, `DELETE FROM ticket_tags WHERE `+a.inList("ticket_id", part), a.list...); err != nil {
			return fmt.Errorf("replace ticket tags: %w", err)
		}
	}
	if err := db.InsertRows(ctx, q, d, "ticket_tags", []string{"ticket_id", "tag_id", "company_id"}, nil, tagRows,
		`ON CONFLICT (ticket_id, tag_id) DO NOTHING`, nil); err != nil {
		return err
	}

	cells := make([]cell, 0, len(deltas))
	for c, n := range deltas {
		if n != 0 {
			cells = append(cells, c)
		}
	}
	sort.Slice(cells, func(i, j int) bool { return cellLess(cells[i], cells[j]) })
	countRows := make([][]any, len(cells))
	for i, c := range cells {
		countRows[i] = []any{c.company, c.status, c.queue, c.userID, deltas[c]}
	}
	return db.InsertRows(ctx, q, d, "ticket_counts", []string{"company_id", "status", "queue_id", "user_id", "n"}, nil, countRows,
		`ON CONFLICT (company_id, status, queue_id, user_id) DO UPDATE SET n = ticket_counts.n + excluded.n`, nil)
}

func cellLess(a, b cell) bool {
	if a.company != b.company {
		return a.company < b.company
	}
	if a.status != b.status {
		return a.status < b.status
	}
	if a.queue != b.queue {
		return a.queue < b.queue
	}
	return a.userID < b.userID
}

// pendingArg is a pending_since argument: NULL when the ticket is not pending.
func pendingArg(d db.Dialect, t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return tsArg(d, t)
}
