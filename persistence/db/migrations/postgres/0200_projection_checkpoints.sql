-- How far each projection (read model) has applied the journal. Updated in the same
-- transaction as the read model itself, so every event is applied exactly once.
CREATE TABLE projection_checkpoints (
    name       TEXT PRIMARY KEY,
    position   BIGINT NOT NULL DEFAULT 0 CHECK (position >= 0),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
