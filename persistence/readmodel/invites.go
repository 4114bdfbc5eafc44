package readmodel

import (
	"context"
	"fmt"

	"atende/engine"
	"atende/persistence/db"
)

// Ticket invitations in the read model (migration 0910): ticket_invites holds the
// pending ones, ticket_guests the users who accepted one. The projection writes them
// as the events come (applyInvite); the ticket lists read ticket_guests (a guest's
// tickets, tickets_scope.go), GET /ticketinvite reads ticket_invites
// (PendingInvites).

// applyInvite stores what an invitation event of ticket id changes: an invitation
// (again) pending, or answered — accepted, which makes a guest, or declined. Other
// events change nothing here. Replaying an event writes the same rows.
func applyInvite(ctx context.Context, q querier, d db.Dialect, id, company engine.ID, te engine.TicketEvent) error {
	var err error
	switch e := te.(type) {
	case engine.TicketInvited:
		_, err = q.ExecContext(ctx, `INSERT INTO ticket_invites
			(ticket_id, user_id, company_id, by_user_id, to_name, from_name, invited_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (ticket_id, user_id) DO UPDATE SET by_user_id = excluded.by_user_id,
				to_name = excluded.to_name, from_name = excluded.from_name, invited_at = excluded.invited_at`,
			id, e.UserID, company, e.ByUserID, e.ToName, e.FromName, tsArg(d, e.At))
	case engine.TicketInviteAccepted:
		if err = deleteInvite(ctx, q, id, e.UserID); err == nil {
			_, err = q.ExecContext(ctx, `INSERT INTO ticket_guests (ticket_id, user_id, company_id) VALUES ($1, $2, $3)
				ON CONFLICT (ticket_id, user_id) DO NOTHING`, id, e.UserID, company)
		}
	case engine.TicketInviteDeclined:
		err = deleteInvite(ctx, q, id, e.UserID)
	}
	if err != nil {
		return fmt.Errorf("store invitation of ticket %d: %w", id, err)
	}
	return nil
}

func deleteInvite(ctx context.Context, q querier, ticket, user engine.ID) error {
	_, err := q.ExecContext(ctx, `DELETE FROM ticket_invites WHERE ticket_id = $1 AND user_id = $2`, ticket, user)
	return err
}

// PendingInvites implements engine.InviteQueries: user's pending invitations of
// company, newest first, at most engine.PendingInvitesLimit — those whose ticket is
// still live and not closed (a closed ticket takes no answer until it is reopened;
// a deleted one none at all), each with the ticket's contact as the socket's
// "invitation" event shows it.
func (s *Queries) PendingInvites(ctx context.Context, company, user engine.ID) ([]engine.Invitation, error) {
	var out []engine.Invitation
	err := s.read(ctx, func(c *call) (err error) {
		out, err = c.pendingInvites(ctx, company, user)
		return err
	})
	return out, err
}

func (s *call) pendingInvites(ctx context.Context, company, user engine.ID) ([]engine.Invitation, error) {
	out := []engine.Invitation{}
	rs, err := s.query(ctx, `SELECT i.ticket_id, i.by_user_id, i.to_name, i.from_name, i.invited_at
		FROM ticket_invites i JOIN tickets t ON t.id = i.ticket_id AND t.company_id = i.company_id
		WHERE i.company_id = $1 AND i.user_id = $2 AND t.deleted = FALSE AND t.status <> $3
		ORDER BY i.invited_at DESC, i.ticket_id DESC LIMIT $4`,
		[]any{company, user, engine.StatusClosed, engine.PendingInvitesLimit})
	if err != nil {
		return nil, fmt.Errorf("pending invitations of user %d: %w", user, err)
	}
	var rows []engine.Invitation
	var ids []engine.ID
	for rs.Next() {
		var in engine.Invitation
		if err := rs.Scan(&in.Ticket, &in.UserFrom, &in.UTo, &in.UFrom, timeCol{&in.DateTime}); err != nil {
			rs.Close()
			return nil, fmt.Errorf("pending invitations of user %d: %w", user, err)
		}
		rows = append(rows, in)
		ids = append(ids, in.Ticket)
	}
	err = rs.Err()
	rs.Close()
	if err != nil {
		return nil, fmt.Errorf("pending invitations of user %d: %w", user, err)
	}
	tickets, err := s.hydrate(ctx, company, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[engine.ID]*engine.Ticket, len(tickets))
	for i := range tickets {
		byID[tickets[i].ID] = &tickets[i]
	}
	for _, in := range rows {
		t := byID[in.Ticket]
		if t == nil {
			continue // gone between the two reads
		}
		out = append(out, engine.InvitationOf(t, engine.InvitationCreate, user, in.UTo, in.UserFrom, in.UFrom, in.DateTime))
	}
	return out, nil
}

// fillGuests sets the Guests of the tickets of byID (sorted, as engine.TicketState
// keeps them), through ticket_guests' primary key.
func (s *call) fillGuests(ctx context.Context, company engine.ID, byID map[engine.ID]*engine.Ticket) error {
	ids := make([]engine.ID, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	for _, part := range chunks(unique(ids), idChunk(s.db.Dialect)) {
		var a args
		query := `SELECT g.ticket_id, g.user_id FROM ticket_guests g WHERE ` + a.inList("g.ticket_id", part) +
			` AND g.company_id = ` + a.add(company) + ` ORDER BY g.ticket_id, g.user_id`
		rs, err := s.query(ctx, query, a.list)
		if err != nil {
			return fmt.Errorf("read ticket guests of company %d: %w", company, err)
		}
		for rs.Next() {
			var ticket, user engine.ID
			if err := rs.Scan(&ticket, &user); err != nil {
				rs.Close()
				return fmt.Errorf("read ticket guests of company %d: %w", company, err)
			}
			if t := byID[ticket]; t != nil {
				t.Guests = append(t.Guests, user)
			}
		}
		err = rs.Err()
		rs.Close()
		if err != nil {
			return fmt.Errorf("read ticket guests of company %d: %w", company, err)
		}
	}
	return nil
}
