-- Channel connections (persistence/connection). Times are Unix microseconds (UTC).
CREATE TABLE connections (
    id               BIGSERIAL PRIMARY KEY,
    company_id       BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    number           TEXT NOT NULL DEFAULT '',
    channel          TEXT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'DISCONNECTED',
    qrcode           TEXT NOT NULL DEFAULT '',
    retries          INTEGER NOT NULL DEFAULT 0,
    is_default       BOOLEAN NOT NULL DEFAULT FALSE,
    out_channel      BOOLEAN NOT NULL DEFAULT FALSE,
    daily_max        INTEGER NOT NULL DEFAULT 0,
    greeting_message TEXT NOT NULL DEFAULT '',
    farewell_message TEXT NOT NULL DEFAULT '',
    greeting_media   TEXT NOT NULL DEFAULT '',
    farewell_media   TEXT NOT NULL DEFAULT '',
    token            TEXT NOT NULL UNIQUE,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL
);
CREATE INDEX connections_company ON connections (company_id, id);

CREATE TABLE connection_queues (
    connection_id BIGINT NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    queue_id      BIGINT NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,
    PRIMARY KEY (connection_id, queue_id)
);

-- The ticket a contact's conversation on a connection lives in (engine.TicketGuard).
CREATE TABLE contact_tickets (
    connection_id BIGINT NOT NULL,
    contact_id    BIGINT NOT NULL,
    company_id    BIGINT NOT NULL,
    ticket_id     BIGINT NOT NULL,
    PRIMARY KEY (connection_id, contact_id)
);
