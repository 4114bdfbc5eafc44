-- Sequential WhatsApp groups (persistence/groups, docs/groups.md). A batch asks for
-- count groups on one connection; group_items holds one row per group of the batch,
-- created with the batch, each with the create key WhatsApp deduplicates it by.
-- attempts counts the creations begun (the intent, written before WhatsApp is asked),
-- so a job resumed after a crash knows to look for the group before creating one;
-- the outcome (jid, invite link) is written once, on a row still pending. joined
-- counts the visitors /groupjoin sent to the group, raised by a conditional UPDATE
-- under the group's room. Times are Unix microseconds (UTC).
CREATE TABLE group_batches (
    id               BIGSERIAL PRIMARY KEY,
    company_id       BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    connection_id    BIGINT NOT NULL,
    user_id          BIGINT NOT NULL DEFAULT 0,
    name             TEXT NOT NULL,
    root             INTEGER NOT NULL,
    admin1           TEXT NOT NULL,
    admin2           TEXT NOT NULL,
    count            INTEGER NOT NULL,
    max_participants INTEGER NOT NULL,
    media_path       TEXT NOT NULL,
    media_type       TEXT NOT NULL,
    token            TEXT NOT NULL,
    status           TEXT NOT NULL,
    created_count    INTEGER NOT NULL DEFAULT 0,
    failed_count     INTEGER NOT NULL DEFAULT 0,
    joined_count     INTEGER NOT NULL DEFAULT 0,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    CHECK (status IN ('running', 'finished'))
);

CREATE INDEX group_batches_company ON group_batches (company_id, id);
CREATE UNIQUE INDEX group_batches_token ON group_batches (token);

CREATE TABLE group_items (
    batch_id     BIGINT NOT NULL REFERENCES group_batches (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    company_id   BIGINT NOT NULL,
    name         TEXT NOT NULL,
    create_key   TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending',
    attempts     INTEGER NOT NULL DEFAULT 0,
    jid          TEXT NOT NULL DEFAULT '',
    invite_link  TEXT NOT NULL DEFAULT '',
    participants INTEGER NOT NULL DEFAULT 0,
    joined       INTEGER NOT NULL DEFAULT 0,
    error        TEXT NOT NULL DEFAULT '',
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (batch_id, seq),
    CHECK (status IN ('pending', 'created', 'error'))
);
