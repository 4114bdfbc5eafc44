-- pending_since: when a pending ticket entered pending (see the PostgreSQL migration of
-- the same version); fixed-width UTC text like the other times, NULL unless pending.
ALTER TABLE tickets ADD COLUMN pending_since TEXT;

-- Backfill from the journal, as on PostgreSQL. The events' "at" is RFC 3339 text;
-- strftime turns it into the read model's layout (to the millisecond).
UPDATE tickets SET pending_since = COALESCE((
    SELECT MIN(strftime('%Y-%m-%dT%H:%M:%f', json_extract(e.data, '$.at')) || '000Z') FROM events e
    WHERE e.stream_id = 'ticket/' || tickets.id
      AND e.type IN ('ticket.opened', 'ticket.returned', 'ticket.transferred')
      AND e.version > COALESCE((SELECT MAX(x.version) FROM events x
          WHERE x.stream_id = 'ticket/' || tickets.id
            AND (x.type IN ('ticket.accepted', 'ticket.resolved', 'ticket.reopened')
                 OR (x.type = 'ticket.opened' AND json_extract(x.data, '$.status') <> 'pending')
                 OR (x.type = 'ticket.transferred' AND json_extract(x.data, '$.toStatus') <> 'pending'))), 0)
), updated_at)
WHERE status = 'pending';

-- The wait panel's two walks, over pending tickets only.
CREATE INDEX tickets_pending_since ON tickets (company_id, pending_since, id) WHERE status = 'pending';
CREATE INDEX tickets_pending_queue_since ON tickets (company_id, queue_id, pending_since, id) WHERE status = 'pending';
