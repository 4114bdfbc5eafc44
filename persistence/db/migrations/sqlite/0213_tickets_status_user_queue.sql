-- The tickets assigned to me in queues outside a queue filter: one walk per
-- (attendant, queue) in list order, and the loose index scan that finds which queues
-- an attendant holds tickets in (persistence/readmodel/tickets_held.go). See the
-- PostgreSQL migration of the same version.
CREATE INDEX tickets_status_user_queue ON tickets (company_id, status, user_id, queue_id, updated_at, id);
