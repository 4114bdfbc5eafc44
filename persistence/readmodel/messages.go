package readmodel

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"atende/engine"
)

// ListMessages implements engine.TicketQueries. A page is one backward walk of the
// index (ticket_id, seq) from the cursor, so it costs the same at any depth.
func (s *Queries) ListMessages(ctx context.Context, companyID, ticketID engine.ID, q engine.MessageQuery) (engine.MessagePage, error) {
	var out engine.MessagePage
	err := s.read(ctx, func(c *call) (err error) {
		out, err = c.listMessages(ctx, companyID, ticketID, q)
		return err
	})
	return out, err
}

func (s *call) listMessages(ctx context.Context, companyID, ticketID engine.ID, q engine.MessageQuery) (engine.MessagePage, error) {
	page := engine.MessagePage{Messages: []engine.Message{}}
	var before int64
	switch {
	case q.Cursor != "":
		seq, err := decodeMessageCursor(q.Cursor)
		if err != nil {
			return page, err
		}
		before = seq
	case q.PageNumber < 0 || q.PageNumber > engine.MaxMessagePageNumber:
		return page, fieldError("pageNumber")
	}
	if err := s.ticketExists(ctx, companyID, ticketID); err != nil {
		return page, err
	}
	var a args
	where := "m.ticket_id = " + a.add(ticketID) + " AND m.company_id = " + a.add(companyID)
	if before > 0 {
		where += " AND m.seq < " + a.add(before)
	}
	tail := " ORDER BY m.seq DESC LIMIT " + a.add(engine.MessagePageSize+1)
	if before == 0 && q.PageNumber > 1 {
		tail += " OFFSET " + a.add((q.PageNumber-1)*engine.MessagePageSize)
	}
	msgs, seqs, err := s.readMessages(ctx, where+tail, a.list)
	if err != nil {
		return page, fmt.Errorf("list messages of ticket %d: %w", ticketID, err)
	}
	if len(msgs) > engine.MessagePageSize {
		msgs, seqs = msgs[:engine.MessagePageSize], seqs[:engine.MessagePageSize]
		page.HasMore = true
		page.NextCursor = encodeMessageCursor(seqs[len(seqs)-1])
	}
	slices.Reverse(msgs)
	page.Messages = msgs
	return page, nil
}

// AllMessages implements engine.TicketQueries.
func (s *Queries) AllMessages(ctx context.Context, companyID, ticketID engine.ID) ([]engine.Message, error) {
	var out []engine.Message
	err := s.read(ctx, func(c *call) (err error) {
		out, err = c.allMessages(ctx, companyID, ticketID)
		return err
	})
	return out, err
}

func (s *call) allMessages(ctx context.Context, companyID, ticketID engine.ID) ([]engine.Message, error) {
	if err := s.ticketExists(ctx, companyID, ticketID); err != nil {
		return []engine.Message{}, err
	}
	var a args
	where := "m.ticket_id = " + a.add(ticketID) + " AND m.company_id = " + a.add(companyID) + " ORDER BY m.seq"
	msgs, _, err := s.readMessages(ctx, where, a.list)
	if err != nil {
		return []engine.Message{}, fmt.Errorf("all messages of ticket %d: %w", ticketID, err)
	}
	return msgs, nil
}

// ticketExists answers ErrNoTicketFound unless ticket is a live ticket of company.
func (s *call) ticketExists(ctx context.Context, company, ticket engine.ID) error {
	if company <= 0 || ticket <= 0 {
		return errNoTicket(company, ticket)
	}
	var one int
	err := s.queryRow(ctx, `SELECT 1 FROM tickets WHERE id = $1 AND company_id = $2 AND deleted = FALSE`,
		[]any{ticket, company}).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return errNoTicket(company, ticket)
	}
	if err != nil {
		return fmt.Errorf("find ticket %d: %w", ticket, err)
	}
	return nil
}

const messageSelect = `SELECT m.id, m.company_id, m.ticket_id, m.seq, m.contact_id, m.sender_id, m.body, m.from_me,
	m.read, m.media_type, m.media_url, m.quoted_msg_id, m.ack, m.is_deleted, m.failed, m.provider_id, m.created_at, m.updated_at,
	m.translation, m.translation_language,
	c.id, c.name, c.number, c.email, c.profile_pic_url,
	qm.id, qm.body, qm.from_me, qc.name, qu.name
	FROM messages m
	LEFT JOIN contacts c ON c.id = m.contact_id AND c.company_id = m.company_id
	LEFT JOIN messages qm ON qm.id = m.quoted_msg_id AND qm.company_id = m.company_id
	LEFT JOIN contacts qc ON qc.id = qm.contact_id AND qc.company_id = m.company_id
	LEFT JOIN users qu ON qu.id = qm.sender_id AND qu.company_id = m.company_id
	WHERE `

// readMessages runs messageSelect with the rest of the query and returns the
// messages with their seqs.
func (s *call) readMessages(ctx context.Context, rest string, list []any) ([]engine.Message, []int64, error) {
	rs, err := s.query(ctx, messageSelect+rest, list)
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	msgs := []engine.Message{}
	var seqs []int64
	for rs.Next() {
		var (
			m                      engine.Message
			seq                    int64
			cID                    sql.NullInt64
			cName, cNumber, cEmail sql.NullString
			cPic                   sql.NullString
			qID                    sql.NullInt64
			qBody                  sql.NullString
			qFromMe                sql.NullBool
			qContact, qUser        sql.NullString
		)
		if err := rs.Scan(&m.ID, &m.CompanyID, &m.TicketID, &seq, &m.ContactID, &m.SenderID, &m.Body, &m.FromMe,
			&m.Read, &m.MediaType, &m.MediaURL, new(engine.ID), &m.Ack, &m.IsDeleted, &m.Failed, &m.ProviderID,
			timeCol{&m.CreatedAt}, timeCol{&m.UpdatedAt}, &m.Translation, &m.TranslationLanguage,
			&cID, &cName, &cNumber, &cEmail, &cPic, &qID, &qBody, &qFromMe, &qContact, &qUser); err != nil {
			return nil, nil, err
		}
		if cID.Valid {
			m.Contact = &engine.Contact{ID: cID.Int64, CompanyID: m.CompanyID, Name: cName.String,
				Number: cNumber.String, Email: cEmail.String, ProfilePicURL: cPic.String,
				ExtraInfo: []engine.ExtraInfo{}, SalesOpps: []engine.SalesOpp{}}
		}
		if qID.Valid {
			name := qContact.String
			if qFromMe.Bool {
				name = qUser.String
			}
			m.QuotedMsg = &engine.QuotedMessage{ID: qID.Int64, FromMe: qFromMe.Bool, Body: qBody.String, ContactName: name}
		}
		msgs = append(msgs, m)
		seqs = append(seqs, seq)
	}
	return msgs, seqs, rs.Err()
}

// GetMessages reads many messages of one company at once, shaped as ListMessages
// shapes them (missing ones left out, in no particular order): the realtime publisher
// sends the whole message in appMessage "update" events (a receipt, a deletion), as
// whaticket's client replaces the message it shows with the event's.
func (s *Queries) GetMessages(ctx context.Context, companyID engine.ID, ids []engine.ID) ([]engine.Message, error) {
	out := []engine.Message{}
	if companyID <= 0 || len(ids) == 0 {
		return out, nil
	}
	err := s.read(ctx, func(c *call) error {
		out = out[:0]
		for _, part := range chunks(unique(ids), idChunk(c.db.Dialect)) {
			var a args
			where := "m.company_id = " + a.add(companyID) + " AND " + a.inList("m.id", part)
			msgs, _, err := c.readMessages(ctx, where, a.list)
			if err != nil {
				return fmt.Errorf("read messages of company %d: %w", companyID, err)
			}
			out = append(out, msgs...)
		}
		return nil
	})
	return out, err
}

var _ engine.MessageLocator = (*Queries)(nil)

// MessageTicket implements engine.MessageLocator: DELETE /messages/{id} names the
// message alone, so its ticket is looked up by the message's primary key, within the
// tenant. A message of another company, of a deleted ticket or unknown answers
// ErrNoMessageFound, the same for all three so ids of other tenants cannot be probed.
func (s *Queries) MessageTicket(ctx context.Context, companyID, messageID engine.ID) (engine.ID, error) {
	notFound := engine.Wrap(engine.ErrNoMessageFound, fmt.Errorf("message %d not in company %d", messageID, companyID))
	if companyID <= 0 || messageID <= 0 {
		return 0, notFound
	}
	var ticketID engine.ID
	err := s.db.SQL.QueryRowContext(ctx, `SELECT m.ticket_id FROM messages m JOIN tickets t ON t.id = m.ticket_id
		WHERE m.id = $1 AND m.company_id = $2 AND t.company_id = $2 AND t.deleted = FALSE`, messageID, companyID).Scan(&ticketID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound
	}
	if err != nil {
		return 0, fmt.Errorf("find the ticket of message %d: %w", messageID, err)
	}
	return ticketID, nil
}
