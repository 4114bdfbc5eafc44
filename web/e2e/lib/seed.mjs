// Seeds the read models of a stopped server's SQLite file with many open tickets (and a
// contact each), straight into the tables the ticket list reads (persistence/db/
// migrations/sqlite 0151 contacts, 0210 tickets + ticket_counts). The rows have no
// journal events: they are for reading (the list, its paging, its counts), not for
// commands. Ids start far above what the server's id blocks hand out meanwhile.
// Uses the sqlite3 command (Debian package sqlite3).
import { spawnSync } from 'node:child_process';

export const seedIdBase = 5_000_000;

export function sqlite3Available() {
  return spawnSync('sqlite3', ['-version'], { encoding: 'utf8' }).status === 0;
}

// seedTickets inserts n open tickets of company 1, spread over users 1–4, queues 1–3 and
// a few channels, updated one every 7 s going back from now (newest first).
export function seedTickets(dbPath, { n, companyId = 1, connectionId = 1 }) {
  const sql = `
.bail on
.timeout 10000
BEGIN;
CREATE TEMP TABLE seq AS
  WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n})
  SELECT i,
         ${seedIdBase} + i AS id,
         strftime('%Y-%m-%dT%H:%M:%f', 'now', printf('-%d seconds', i * 7)) || '000Z' AS ts,
         printf('55659%08d', i) AS number
  FROM s;
INSERT INTO contacts (id, company_id, name, name_norm, number, email, search, created_at, updated_at)
  SELECT id, ${companyId}, 'Cliente Carga ' || i, 'cliente carga ' || i, number, '',
         'cliente carga ' || i || char(31) || number || char(31), ts, ts
  FROM seq;
INSERT INTO tickets (id, company_id, uuid, status, user_id, queue_id, whatsapp_id, contact_id, channel,
                     is_group, unread_messages, last_message, protocol, created_at, updated_at, deleted, version)
  SELECT id, ${companyId}, lower(hex(randomblob(16))), 'open', 1 + i % 4, 1 + i % 3, ${connectionId}, id,
         CASE i % 4 WHEN 0 THEN 'whatsapp' WHEN 1 THEN 'socket' WHEN 2 THEN 'telegram' ELSE 'instagram' END,
         0, i % 5, 'Mensagem de teste número ' || i, '20261101-' || i, ts, ts, 0, 1
  FROM seq;
INSERT INTO ticket_counts (company_id, status, queue_id, user_id, n)
  SELECT ${companyId}, 'open', queue_id, user_id, count(*) FROM tickets WHERE id > ${seedIdBase} GROUP BY queue_id, user_id
  ON CONFLICT (company_id, status, queue_id, user_id) DO UPDATE SET n = n + excluded.n;
COMMIT;
SELECT count(*) FROM tickets WHERE id > ${seedIdBase};
`;
  const res = spawnSync('sqlite3', [dbPath], { input: sql, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`sqlite3 seed failed: ${res.stderr || res.stdout}`);
  const count = Number(res.stdout.trim().split('\n').pop());
  if (count !== n) throw new Error(`sqlite3 seed: ${count} tickets written, expected ${n}`);
  return count;
}
