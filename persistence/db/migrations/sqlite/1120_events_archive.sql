-- Compaction of old streams (events_archive) is PostgreSQL's only: an embedded SQLite
-- journal keeps every event in events. The version is here so both dialects carry the
-- same ones.
SELECT 1;
