-- Nothing to change on SQLite: its journal keeps one writer at a time (BEGIN
-- IMMEDIATE) and positions head+1, head+2, … (see persistence/journal/doc.go). This
-- version exists because both dialects carry the same versions.
SELECT 1;
