-- The event journal: one row per event, in one global order. Positions are assigned
-- by the journal's committer under an advisory lock (see persistence/journal/doc.go),
-- so they are gapless and increase in commit order.
CREATE TABLE events (
    position    BIGINT PRIMARY KEY CHECK (position > 0),
    stream_id   TEXT COLLATE "C" NOT NULL,
    version     BIGINT NOT NULL CHECK (version > 0),
    type        TEXT NOT NULL,
    data        JSON NOT NULL,
    metadata    JSON,
    company_id  BIGINT NOT NULL,
    recorded_at TIMESTAMPTZ NOT NULL,
    CONSTRAINT events_stream_version UNIQUE (stream_id, version)
);

-- The latest snapshot of each stream.
CREATE TABLE snapshots (
    stream_id   TEXT COLLATE "C" PRIMARY KEY,
    version     BIGINT NOT NULL CHECK (version > 0),
    type        TEXT NOT NULL,
    data        BYTEA NOT NULL,
    recorded_at TIMESTAMPTZ NOT NULL
);
