-- Nothing to change on SQLite: one process writes the database, so there is no
-- member to fence (see persistence/journal/fence.go). This version exists because
-- both dialects carry the same versions.
SELECT 1;
