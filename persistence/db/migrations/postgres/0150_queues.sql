-- Queues of a tenant (reference data; persistence/store/queue.go). Colours are unique
-- per tenant (spec section 5), stored lower-cased by engine.ValidateQueue so #ABCDEF
-- and #abcdef clash. Names are not unique: the colour is what tells queues apart on
-- the ticket list. Users' queue links (a later migration) reference queues(id).
CREATE TABLE queues (
    id                  BIGSERIAL PRIMARY KEY,
    company_id          BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name                TEXT NOT NULL,
    color               TEXT NOT NULL,
    greeting_message    TEXT NOT NULL DEFAULT '',
    start_work          TEXT NOT NULL DEFAULT '',
    end_work            TEXT NOT NULL DEFAULT '',
    absence_message     TEXT NOT NULL DEFAULT '',
    nps                 BOOLEAN NOT NULL DEFAULT FALSE,
    encouraging_message TEXT NOT NULL DEFAULT '',
    url                 TEXT NOT NULL DEFAULT '',
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL
);

CREATE UNIQUE INDEX queues_company_color ON queues (company_id, color);
