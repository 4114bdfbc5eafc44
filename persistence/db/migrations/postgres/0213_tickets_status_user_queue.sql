-- The tickets assigned to me in queues outside a queue filter (the show-all list and
-- the closed tab with queue checkboxes): one walk per (attendant, queue) in list
-- order, and the loose index scan that finds which queues an attendant holds tickets
-- in (persistence/readmodel/tickets_held.go). The same key serves an attendant filter
-- combined with a queue filter. Without it those lists walked all of the attendant's
-- tickets testing each one's queue: 30k heap reads for a supervisor holding 30k.
-- Built inside the migration's transaction (no CONCURRENTLY): it blocks writes to
-- tickets while it builds.
CREATE INDEX tickets_status_user_queue ON tickets (company_id, status, user_id, queue_id, updated_at, id)
    WHERE NOT deleted;
