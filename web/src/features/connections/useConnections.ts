// useConnections: the tenant's connections (GET /whatsapp/), loaded once and shared by
// key 'connections' (the page, the drawer's alarm, the transfer dialog), kept live by
// the realtime "whatsapp" (rows created, changed, removed) and "whatsappSession"
// (session status and QR code) events, and reloaded on resync.
import { useCallback, useMemo } from 'react';
import { connectionsApi } from '../../api/endpoints';
import type { Connection, ConnectionEvent, ConnectionSessionEvent, ID } from '../../api/types';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { mutateResource, resourceSide, useResource } from '../../app/resources';
import { applySession, withSession, type SessionState } from './status';

const key = 'connections';

// The latest session state seen per connection, laid over rows read earlier or answered
// later than it (a create's answer may trail its first QR code).
const sessions = () => resourceSide(key, () => new Map<ID, SessionState>());
const fresh = (c: Connection) => withSession(c, sessions().get(c.id));

function upsertIn(list: Connection[], got: Connection): Connection[] {
  const c = fresh(got);
  const next = list.some((x) => x.id === c.id) ? list.map((x) => (x.id === c.id ? c : x)) : [...list, c];
  // One default per tenant: a new default clears the old one.
  return c.isDefault ? next.map((x) => (x.id !== c.id && x.isDefault ? { ...x, isDefault: false } : x)) : next;
}

export function useConnections() {
  const res = useResource(key, connectionsApi.list);
  const upsert = useCallback((c: Connection) => mutateResource<Connection[]>(key, (list) => upsertIn(list ?? [], c)), []);
  const drop = useCallback(
    (id: ID) => mutateResource<Connection[]>(key, (list) => ((list ?? []).some((x) => x.id === id) ? list.filter((x) => x.id !== id) : list)),
    [],
  );
  useRealtimeEvent<ConnectionEvent>('whatsapp', (e) => {
    if (e.action === 'delete') {
      if (e.whatsappId) drop(e.whatsappId);
    } else if (e.whatsapp) upsert(e.whatsapp);
  });
  useRealtimeEvent<ConnectionSessionEvent>('whatsappSession', (e) => {
    if (!e.session) return;
    sessions().set(e.session.id, e.session);
    mutateResource<Connection[]>(key, (list) => applySession(list ?? [], e.session));
  });
  const { reload } = res;
  useResync(reload);
  const data = res.data;
  // Rows as loaded, with any session state newer than them.
  const items = useMemo(() => (data === undefined ? null : (data ?? []).map(fresh)), [data]);
  return { items, error: res.error, reload, upsert, drop };
}

