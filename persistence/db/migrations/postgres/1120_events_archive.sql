-- Compacted streams (persistence/journal/compact_postgres.go). A stream whose events
-- are all old and below every reader's checkpoint moves out of events into one row
-- here: its events encoded together and compressed (persistence/journal/archive.go),
-- versions 1 … last_version, positions first_position … last_position. Events it
-- receives later go to events as before; a later compaction merges them in. Every
-- reader of the journal reads both tables in one statement.
CREATE TABLE events_archive (
    stream_id      TEXT COLLATE "C" PRIMARY KEY,
    company_id     BIGINT NOT NULL,
    first_position BIGINT NOT NULL CHECK (first_position > 0),
    last_position  BIGINT NOT NULL CHECK (last_position >= first_position),
    last_version   BIGINT NOT NULL CHECK (last_version > 0),
    events         BYTEA NOT NULL
);
-- The value is compressed already: keep PostgreSQL from trying again.
ALTER TABLE events_archive ALTER COLUMN events SET STORAGE EXTERNAL;
-- The archived streams holding events in a range of positions (a reader far behind,
-- a rebuild from the start).
CREATE INDEX events_archive_span ON events_archive USING gist (int8range(first_position, last_position, '[]'));
-- The highest archived position: positions up to it are final (the journal's head and
-- high-water mark count it when the newest events have been archived too).
CREATE INDEX events_archive_last ON events_archive (last_position);
