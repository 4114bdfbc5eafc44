-- The ticket read model (persistence/readmodel): one row per ticket, folded from the
-- ticket streams of the journal by the "tickets" projection with engine.EvolveTicket.
-- Ids are the aggregate's (allocated before the events were written), so there is no
-- sequence. user_id, queue_id and whatsapp_id are 0 for "none" rather than NULL: the
-- list filters compare them with = and IN, and the indexes hold them as plain keys.
-- version is the last stream version folded in; the projection applies an event only
-- when its version is above it, which makes a replayed batch a no-op.
-- No foreign keys: a read model must accept whatever the journal says, in any order
-- with the reference tables (a contact deleted later, a queue renamed).
CREATE TABLE tickets (
    id              BIGINT PRIMARY KEY,
    company_id      BIGINT NOT NULL,
    uuid            TEXT NOT NULL,
    status          TEXT NOT NULL,
    user_id         BIGINT NOT NULL DEFAULT 0,
    queue_id        BIGINT NOT NULL DEFAULT 0,
    whatsapp_id     BIGINT NOT NULL DEFAULT 0,
    contact_id      BIGINT NOT NULL,
    channel         TEXT NOT NULL,
    is_group        BOOLEAN NOT NULL DEFAULT FALSE,
    unread_messages INTEGER NOT NULL DEFAULT 0,
    last_message    TEXT NOT NULL DEFAULT '',
    protocol        TEXT COLLATE "C" NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    deleted         BOOLEAN NOT NULL DEFAULT FALSE,
    version         BIGINT NOT NULL
);

-- The ticket manager reads pages in (updated_at DESC, id DESC) order, walking one of
-- these backwards from the cursor: by status (admin tabs, closed tab), by status and
-- attendant (my open tickets, attendant filter), by status and queue (pending for my
-- queues, queue filter). A query over several users or queues is a UNION ALL of one
-- walk per value (see persistence/readmodel/tickets_scope.go). They leave deleted
-- tickets out, so a walk needs nothing from the table itself (an index-only scan
-- where the visibility map allows: a tag filter's walk went from 56 to 16 ms).
CREATE INDEX tickets_status ON tickets (company_id, status, updated_at, id) WHERE NOT deleted;
CREATE INDEX tickets_status_user ON tickets (company_id, status, user_id, updated_at, id) WHERE NOT deleted;
CREATE INDEX tickets_status_queue ON tickets (company_id, status, queue_id, updated_at, id) WHERE NOT deleted;
-- The notification bell and the "with unread messages" filter: few rows.
CREATE INDEX tickets_unread ON tickets (company_id, updated_at, id) WHERE unread_messages > 0 AND NOT deleted;
-- Search by contact (name, number) and by the day a ticket was created.
CREATE INDEX tickets_contact ON tickets (contact_id);
CREATE INDEX tickets_created ON tickets (company_id, created_at);
-- Search by protocol prefix (bytewise, COLLATE "C", so a range serves LIKE 'x%').
CREATE INDEX tickets_protocol ON tickets (company_id, protocol) WHERE protocol <> '';

-- A ticket's tags (the ticket.tags_set events), replaced whole on each change.
CREATE TABLE ticket_tags (
    ticket_id  BIGINT NOT NULL,
    tag_id     BIGINT NOT NULL,
    company_id BIGINT NOT NULL,
    PRIMARY KEY (ticket_id, tag_id)
);

CREATE INDEX ticket_tags_tag ON ticket_tags (company_id, tag_id, ticket_id);

-- How many live (not deleted) tickets each (status, queue, attendant) cell holds,
-- kept by the projection in the same transaction as the tickets. The badges and the
-- count of an unfiltered tab sum a few cells instead of counting rows.
CREATE TABLE ticket_counts (
    company_id BIGINT NOT NULL,
    status     TEXT NOT NULL,
    queue_id   BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,
    n          BIGINT NOT NULL,
    PRIMARY KEY (company_id, status, queue_id, user_id)
);
