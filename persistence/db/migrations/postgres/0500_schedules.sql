-- Scheduled messages and agenda tasks (persistence/schedule). Each pending row has a
-- River job (river_job, created by rivermigrate at start) inserted in the same
-- transaction; job_id names it so that an edit or delete can cancel it. send_at is
-- Unix microseconds (UTC). message_id is the id the message gets on its ticket,
-- allocated with the row: the ticket records a message id once, so a job retried
-- after a crash cannot deliver twice.
CREATE TABLE schedules (
    id              BIGSERIAL PRIMARY KEY,
    company_id      BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    task_name       TEXT NOT NULL DEFAULT '',
    contact_id      BIGINT NOT NULL DEFAULT 0,
    phone_number    TEXT NOT NULL DEFAULT '',
    message         TEXT NOT NULL,
    image_path      TEXT NOT NULL DEFAULT '',
    connection_id   BIGINT NOT NULL DEFAULT 0,
    user_id         BIGINT NOT NULL,
    ticket_id       BIGINT NOT NULL DEFAULT 0,
    tag_filter      TEXT NOT NULL DEFAULT '[]',
    send_at         BIGINT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending',
    error_message   TEXT NOT NULL DEFAULT '',
    message_id      BIGINT NOT NULL UNIQUE,
    sent_ticket_id  BIGINT NOT NULL DEFAULT 0,
    job_id          BIGINT NOT NULL DEFAULT 0,
    search          TEXT NOT NULL DEFAULT '',
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    CHECK (kind IN ('message', 'task')),
    CHECK (status IN ('pending', 'sent', 'error'))
);

CREATE INDEX schedules_company_send ON schedules (company_id, send_at, id);
CREATE INDEX schedules_contact_pending ON schedules (company_id, contact_id) WHERE status = 'pending';
CREATE INDEX schedules_connection_pending ON schedules (company_id, connection_id) WHERE status = 'pending';
