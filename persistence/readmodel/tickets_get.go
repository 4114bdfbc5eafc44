package readmodel

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"atende/engine"
)

// GetTicket implements engine.TicketQueries. The contact carries the fields of its
// row (id, name, number, email, profilePicUrl, displayPic, type, isGroup,
// appraisalData); its extraInfo and salesOpps lists are the contact store's
// (engine.ContactStore.Get) and come back empty here.
func (s *Queries) GetTicket(ctx context.Context, companyID, id engine.ID) (engine.Ticket, error) {
	var out engine.Ticket
	err := s.read(ctx, func(c *call) (err error) {
		out, err = c.getTicket(ctx, companyID, id)
		return err
	})
	return out, err
}

func (s *call) getTicket(ctx context.Context, companyID, id engine.ID) (engine.Ticket, error) {
	if companyID <= 0 || id <= 0 {
		return engine.Ticket{}, errNoTicket(companyID, id)
	}
	ts, err := s.hydrate(ctx, companyID, []engine.ID{id})
	if err != nil {
		return engine.Ticket{}, err
	}
	if len(ts) == 0 {
		return engine.Ticket{}, errNoTicket(companyID, id)
	}
	return ts[0], nil
}

const hydrateCols = `t.id, t.uuid, t.company_id, t.status, t.user_id, t.contact_id, t.is_group,
	t.unread_messages, t.queue_id, t.whatsapp_id, t.channel, t.last_message, t.protocol, t.created_at, t.updated_at,
	c.id, c.name, c.number, c.email, c.profile_pic_url, c.display_pic, c.type, c.is_group,
	c.appraisal_sum, c.appraisal_count, c.created_at, c.updated_at, u.name, q.name, q.color, w.name`

// hydrate reads the live tickets ids of company with contact, user, queue and tags,
// in the order of ids (ids not found are left out).
func (s *call) hydrate(ctx context.Context, company engine.ID, ids []engine.ID) ([]engine.Ticket, error) {
	out := make([]engine.Ticket, 0, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	byID := make(map[engine.ID]*engine.Ticket, len(ids))
	for _, part := range chunks(ids, idChunk(s.db.Dialect)) {
		if err := s.hydrateChunk(ctx, company, part, byID); err != nil {
			return nil, err
		}
	}
	if err := s.fillTags(ctx, company, byID); err != nil {
		return nil, err
	}
	if err := s.fillGuests(ctx, company, byID); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if t, ok := byID[id]; ok {
			out = append(out, *t)
		}
	}
	return out, nil
}

func (s *call) hydrateChunk(ctx context.Context, company engine.ID, ids []engine.ID, byID map[engine.ID]*engine.Ticket) error {
	var a args
	c := a.add(company)
	query := `SELECT ` + hydrateCols + ` FROM tickets t
		LEFT JOIN contacts c ON c.id = t.contact_id AND c.company_id = t.company_id
		LEFT JOIN users u ON u.id = t.user_id AND u.company_id = t.company_id
		LEFT JOIN queues q ON q.id = t.queue_id AND q.company_id = t.company_id
		LEFT JOIN connections w ON w.id = t.whatsapp_id AND w.company_id = t.company_id
		WHERE t.company_id = ` + c + ` AND t.deleted = FALSE AND ` + a.inList("t.id", ids)
	rs, err := s.query(ctx, query, a.list)
	if err != nil {
		return fmt.Errorf("read tickets of company %d: %w", company, err)
	}
	defer rs.Close()
	for rs.Next() {
		t, err := scanTicket(rs)
		if err != nil {
			return fmt.Errorf("read tickets of company %d: %w", company, err)
		}
		byID[t.ID] = &t
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("read tickets of company %d: %w", company, err)
	}
	return nil
}

func scanTicket(rs *sql.Rows) (engine.Ticket, error) {
	var t engine.Ticket
	var (
		cID                    sql.NullInt64
		cName, cNumber, cEmail sql.NullString
		cPic, cDisplay, cType  sql.NullString
		cGroup                 sql.NullBool
		cSum, cCount           sql.NullInt64
		uName, qName, qColor   sql.NullString
		wName                  sql.NullString
		cCreated, cUpdated     time.Time
	)
	err := rs.Scan(&t.ID, &t.UUID, &t.CompanyID, &t.Status, &t.UserID, &t.ContactID, &t.IsGroup,
		&t.UnreadMessages, &t.QueueID, &t.ConnectionID, &t.Channel, &t.LastMessage, &t.Protocol,
		timeCol{&t.CreatedAt}, timeCol{&t.UpdatedAt},
		&cID, &cName, &cNumber, &cEmail, &cPic, &cDisplay, &cType, &cGroup, &cSum, &cCount,
		timeCol{&cCreated}, timeCol{&cUpdated}, &uName, &qName, &qColor, &wName)
	if err != nil {
		return t, err
	}
	// A contact row that is gone (deleted later) still gives the ticket its id, so
	// the client never meets a ticket without a contact.
	t.Contact = &engine.Contact{
		ID: t.ContactID, CompanyID: t.CompanyID, Name: cName.String, Number: cNumber.String,
		Email: cEmail.String, ProfilePicURL: cPic.String, DisplayPic: cDisplay.String, Type: cType.String,
		IsGroup: cGroup.Bool, ExtraInfo: []engine.ExtraInfo{}, SalesOpps: []engine.SalesOpp{},
		CreatedAt: cCreated, UpdatedAt: cUpdated,
	}
	if cID.Valid {
		t.Contact.AppraisalData = &engine.AppraisalData{TotalSum: int(cSum.Int64), TotalCount: int(cCount.Int64)}
	}
	if t.UserID != 0 {
		t.User = &engine.UserRef{ID: t.UserID, Name: uName.String}
	}
	if wName.Valid {
		t.Whatsapp = &engine.WhatsappRef{ID: t.ConnectionID, Name: wName.String}
	}
	if t.QueueID != 0 {
		t.Queue = &engine.QueueRef{ID: t.QueueID, Name: qName.String, Color: qColor.String}
	}
	t.Tags = []engine.Tag{}
	return t, nil
}

// fillTags sets the tags of the tickets, ordered by folded tag name then id.
func (s *call) fillTags(ctx context.Context, company engine.ID, byID map[engine.ID]*engine.Ticket) error {
	ids := make([]engine.ID, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	for _, part := range chunks(unique(ids), idChunk(s.db.Dialect)) {
		var a args
		query := `SELECT tt.ticket_id, g.id, g.name, g.color FROM ticket_tags tt
			JOIN tags g ON g.id = tt.tag_id AND g.company_id = tt.company_id
			WHERE tt.company_id = ` + a.add(company) + ` AND ` + a.inList("tt.ticket_id", part) + `
			ORDER BY tt.ticket_id, g.name_key, g.id`
		rs, err := s.query(ctx, query, a.list)
		if err != nil {
			return fmt.Errorf("read ticket tags of company %d: %w", company, err)
		}
		for rs.Next() {
			var ticket engine.ID
			g := engine.Tag{CompanyID: company}
			if err := rs.Scan(&ticket, &g.ID, &g.Name, &g.Color); err != nil {
				rs.Close()
				return fmt.Errorf("read ticket tags of company %d: %w", company, err)
			}
			if t := byID[ticket]; t != nil {
				t.Tags = append(t.Tags, g)
			}
		}
		err = rs.Err()
		rs.Close()
		if err != nil {
			return fmt.Errorf("read ticket tags of company %d: %w", company, err)
		}
	}
	return nil
}

// GetTickets reads many tickets of one company at once (in the order of ids, missing
// or deleted ones left out): the realtime publisher reads every ticket a batch of
// journal events touches with one query instead of one per ticket.
func (s *Queries) GetTickets(ctx context.Context, companyID engine.ID, ids []engine.ID) ([]engine.Ticket, error) {
	var out []engine.Ticket
	err := s.read(ctx, func(c *call) (err error) {
		out, err = c.getTickets(ctx, companyID, ids)
		return err
	})
	return out, err
}

func (s *call) getTickets(ctx context.Context, companyID engine.ID, ids []engine.ID) ([]engine.Ticket, error) {
	if companyID <= 0 {
		return nil, nil
	}
	return s.hydrate(ctx, companyID, ids)
}
