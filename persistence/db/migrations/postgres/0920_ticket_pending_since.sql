-- pending_since: when a pending ticket entered pending (opened pending, returned,
-- transferred from open into pending), kept while it stays pending (a customer writing
-- again, a transfer between queues) and NULL while it is open or closed. The wait panel
-- measures "longest wait" from it; updated_at moves with every message, so the clock
-- restarted each time the customer wrote again. The tickets projection keeps it.
ALTER TABLE tickets ADD COLUMN pending_since TIMESTAMPTZ;

-- Backfill from the journal, which is in the same database: for each pending ticket,
-- the earliest event that moved it into pending after the last event that took it out
-- of pending (accepted, resolved, reopened, opened or transferred into another status).
-- Events are read per stream through events_stream_version. A ticket whose stream holds
-- no such event (not expected) keeps the old measure, updated_at.
UPDATE tickets t SET pending_since = COALESCE((
    SELECT MIN((e.data->>'at')::timestamptz) FROM events e
    WHERE e.stream_id = 'ticket/' || t.id
      AND e.type IN ('ticket.opened', 'ticket.returned', 'ticket.transferred')
      AND e.version > COALESCE((SELECT MAX(x.version) FROM events x
          WHERE x.stream_id = 'ticket/' || t.id
            AND (x.type IN ('ticket.accepted', 'ticket.resolved', 'ticket.reopened')
                 OR (x.type = 'ticket.opened' AND x.data->>'status' <> 'pending')
                 OR (x.type = 'ticket.transferred' AND x.data->>'toStatus' <> 'pending'))), 0)
), t.updated_at)
WHERE t.status = 'pending';

-- The wait panel's two walks, over pending tickets only (a few percent of the table):
-- the tenant's longest waits (the waiting list) and each queue's longest wait.
CREATE INDEX tickets_pending_since ON tickets (company_id, pending_since, id)
    WHERE status = 'pending' AND NOT deleted;
CREATE INDEX tickets_pending_queue_since ON tickets (company_id, queue_id, pending_since, id)
    WHERE status = 'pending' AND NOT deleted;
