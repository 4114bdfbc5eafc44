-- Ticket invitations in the ticket read model (persistence/readmodel, fed by the
-- "tickets" projection from ticket.invited, ticket.invite_accepted and
-- ticket.invite_declined; engine/ticket_invite.go has the rules). Derived data like
-- the rest of the read model: Runner.Reset("tickets") rebuilds them from the journal.

-- The pending invitations: listed to the invitee by GET /ticketinvite (only while the
-- ticket is not closed: a closed ticket takes no answer).
CREATE TABLE ticket_invites (
    ticket_id  BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,
    company_id BIGINT NOT NULL,
    by_user_id BIGINT NOT NULL,
    to_name    TEXT NOT NULL DEFAULT '',
    from_name  TEXT NOT NULL DEFAULT '',
    invited_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (ticket_id, user_id)
);

CREATE INDEX ticket_invites_user ON ticket_invites (company_id, user_id, invited_at);

-- The guests: users who accepted an invitation; they stay for the ticket's life. The
-- ticket lists reach a guest's tickets through ticket_guests_user (one seek per user),
-- then the tickets' primary key.
CREATE TABLE ticket_guests (
    ticket_id  BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,
    company_id BIGINT NOT NULL,
    PRIMARY KEY (ticket_id, user_id)
);

CREATE INDEX ticket_guests_user ON ticket_guests (company_id, user_id, ticket_id);
