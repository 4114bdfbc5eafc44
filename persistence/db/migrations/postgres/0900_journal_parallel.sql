-- Journal appends without a global lock (see persistence/journal/doc.go, "Positions
-- and ordering"). Positions now come from a sequence, taken by each group-commit
-- transaction after it has been given its transaction id; every row records that id
-- (transaction_id) and the sequence's value read just before the id was assigned
-- (fence): every position ≤ fence belongs to a transaction whose id is lower. Readers
-- only read positions below a high-water mark derived from both, so they never skip an
-- event that commits later with a lower position.
--
-- Existing rows keep their positions; transaction_id 0 marks them as written by a
-- transaction that finished long ago, and fence 0 claims nothing (readers then take a
-- fence of their own). Both defaults are constants, so the columns are added without
-- rewriting the table.
ALTER TABLE events ADD COLUMN transaction_id xid8 NOT NULL DEFAULT '0';
ALTER TABLE events ALTER COLUMN transaction_id SET DEFAULT pg_current_xact_id();
ALTER TABLE events ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;

-- CACHE 1 (the default) matters: a reader's fence is the sequence's last_value, which
-- is only an upper bound of the positions handed out if no backend holds cached values.
CREATE SEQUENCE events_position_seq AS BIGINT MINVALUE 1 CACHE 1;
SELECT setval('events_position_seq', coalesce(max(position), 0) + 1, false) FROM events;
