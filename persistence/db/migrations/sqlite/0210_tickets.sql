-- The ticket read model (persistence/readmodel): one row per ticket, folded from the
-- ticket streams of the journal by the "tickets" projection with engine.EvolveTicket.
-- Ids are the aggregate's (allocated before the events were written). user_id,
-- queue_id and whatsapp_id are 0 for "none" rather than NULL: the list filters compare
-- them with = and IN, and the indexes hold them as plain keys. version is the last
-- stream version folded in; the projection applies an event only when its version is
-- above it, which makes a replayed batch a no-op. Times are fixed-width UTC text
-- (2006-01-02T15:04:05.000000Z), which sorts in time order. No foreign keys: a read
-- model must accept whatever the journal says.
CREATE TABLE tickets (
    id              INTEGER PRIMARY KEY,
    company_id      INTEGER NOT NULL,
    uuid            TEXT NOT NULL,
    status          TEXT NOT NULL,
    user_id         INTEGER NOT NULL DEFAULT 0,
    queue_id        INTEGER NOT NULL DEFAULT 0,
    whatsapp_id     INTEGER NOT NULL DEFAULT 0,
    contact_id      INTEGER NOT NULL,
    channel         TEXT NOT NULL,
    is_group        INTEGER NOT NULL DEFAULT 0,
    unread_messages INTEGER NOT NULL DEFAULT 0,
    last_message    TEXT NOT NULL DEFAULT '',
    protocol        TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    deleted         INTEGER NOT NULL DEFAULT 0,
    version         INTEGER NOT NULL
);

-- The ticket manager reads pages in (updated_at DESC, id DESC) order, walking one of
-- these backwards from the cursor (see the PostgreSQL migration of the same version).
CREATE INDEX tickets_status ON tickets (company_id, status, updated_at, id);
CREATE INDEX tickets_status_user ON tickets (company_id, status, user_id, updated_at, id);
CREATE INDEX tickets_status_queue ON tickets (company_id, status, queue_id, updated_at, id);
CREATE INDEX tickets_unread ON tickets (company_id, updated_at, id) WHERE unread_messages > 0;
CREATE INDEX tickets_contact ON tickets (contact_id);
CREATE INDEX tickets_created ON tickets (company_id, created_at);
CREATE INDEX tickets_protocol ON tickets (company_id, protocol) WHERE protocol <> '';

-- A ticket's tags (the ticket.tags_set events), replaced whole on each change.
CREATE TABLE ticket_tags (
    ticket_id  INTEGER NOT NULL,
    tag_id     INTEGER NOT NULL,
    company_id INTEGER NOT NULL,
    PRIMARY KEY (ticket_id, tag_id)
);

CREATE INDEX ticket_tags_tag ON ticket_tags (company_id, tag_id, ticket_id);

-- How many live (not deleted) tickets each (status, queue, attendant) cell holds.
CREATE TABLE ticket_counts (
    company_id INTEGER NOT NULL,
    status     TEXT NOT NULL,
    queue_id   INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (company_id, status, queue_id, user_id)
);
