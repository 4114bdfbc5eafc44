-- The event journal: one row per event, in one global order. Positions are assigned
-- by the journal's committer inside its write transaction (see
-- persistence/journal/doc.go), so they are gapless and increase in commit order.
CREATE TABLE events (
    position    INTEGER PRIMARY KEY CHECK (position > 0),
    stream_id   TEXT NOT NULL,
    version     INTEGER NOT NULL CHECK (version > 0),
    type        TEXT NOT NULL,
    data        TEXT NOT NULL,
    metadata    TEXT,
    company_id  INTEGER NOT NULL,
    recorded_at TEXT NOT NULL,
    CONSTRAINT events_stream_version UNIQUE (stream_id, version)
);

-- The latest snapshot of each stream.
CREATE TABLE snapshots (
    stream_id   TEXT PRIMARY KEY,
    version     INTEGER NOT NULL CHECK (version > 0),
    type        TEXT NOT NULL,
    data        BLOB NOT NULL,
    recorded_at TEXT NOT NULL
);
