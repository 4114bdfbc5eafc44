-- The message read model (persistence/readmodel), fed by the same "tickets"
-- projection. seq is the stream version of the event that created the message: it
-- orders a ticket's messages exactly as the ticket actor decided them, whatever the
-- clocks said, and is the keyset of the message pages. contact_id is the customer for
-- inbound messages, 0 for ours; sender_id the attendant who wrote ours (0 for the
-- customer's and for automatic messages). Deleted messages keep their body (audit).
-- The word index is migration 0212.
CREATE TABLE messages (
    id            BIGINT PRIMARY KEY,
    company_id    BIGINT NOT NULL,
    ticket_id     BIGINT NOT NULL,
    seq           BIGINT NOT NULL,
    contact_id    BIGINT NOT NULL DEFAULT 0,
    sender_id     BIGINT NOT NULL DEFAULT 0,
    body          TEXT NOT NULL,
    from_me       BOOLEAN NOT NULL,
    read          BOOLEAN NOT NULL,
    media_type    TEXT NOT NULL DEFAULT '',
    media_url     TEXT NOT NULL DEFAULT '',
    quoted_msg_id BIGINT NOT NULL DEFAULT 0,
    ack           INTEGER NOT NULL DEFAULT 0,
    is_deleted    BOOLEAN NOT NULL DEFAULT FALSE,
    provider_id   TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);

CREATE UNIQUE INDEX messages_ticket_seq ON messages (ticket_id, seq);
