-- Bizflow flows of a tenant (persistence/flow/store.go, docs/flows.md). data_json is
-- the editor's React Flow document as sent (validated by engine.ValidateFlow).
CREATE TABLE flows (
    id          BIGSERIAL PRIMARY KEY,
    company_id  BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    is_active   BOOLEAN NOT NULL DEFAULT TRUE,
    data_json   TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

CREATE INDEX flows_company ON flows (company_id, id);

-- Where a flow starts: a new ticket of a connection (kind 'connection') or in a queue
-- (kind 'queue'). One flow per connection and per queue of a tenant.
CREATE TABLE flow_starts (
    company_id BIGINT NOT NULL,
    kind       TEXT NOT NULL,
    target_id  BIGINT NOT NULL,
    flow_id    BIGINT NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
    PRIMARY KEY (company_id, kind, target_id)
);

CREATE INDEX flow_starts_flow ON flow_starts (flow_id);

-- The runs not yet finished, with the status their actor last wrote: what a node
-- starting up (or the periodic sweep) wakes so that a run interrupted between two
-- steps carries on. The journal stream flow/<ticket_id> is the truth; a row is a
-- hint, removed when the run finishes.
CREATE TABLE flow_runs (
    ticket_id  BIGINT PRIMARY KEY,
    company_id BIGINT NOT NULL,
    flow_id    BIGINT NOT NULL,
    status     TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE INDEX flow_runs_status ON flow_runs (status, updated_at);
