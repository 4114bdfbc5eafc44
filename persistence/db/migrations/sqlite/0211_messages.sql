-- The message read model (persistence/readmodel), fed by the same "tickets"
-- projection. seq is the stream version of the event that created the message: it
-- orders a ticket's messages exactly as the ticket actor decided them and is the
-- keyset of the message pages. contact_id is the customer for inbound messages, 0 for
-- ours; sender_id the attendant who wrote ours. Deleted messages keep their body. The
-- word index is migration 0212.
CREATE TABLE messages (
    id            INTEGER PRIMARY KEY,
    company_id    INTEGER NOT NULL,
    ticket_id     INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    contact_id    INTEGER NOT NULL DEFAULT 0,
    sender_id     INTEGER NOT NULL DEFAULT 0,
    body          TEXT NOT NULL,
    from_me       INTEGER NOT NULL,
    read          INTEGER NOT NULL,
    media_type    TEXT NOT NULL DEFAULT '',
    media_url     TEXT NOT NULL DEFAULT '',
    quoted_msg_id INTEGER NOT NULL DEFAULT 0,
    ack           INTEGER NOT NULL DEFAULT 0,
    is_deleted    INTEGER NOT NULL DEFAULT 0,
    provider_id   TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

CREATE UNIQUE INDEX messages_ticket_seq ON messages (ticket_id, seq);
