// The newest active announcement of the tenant (GET /announcements/?status=active, first
// record), shared by key and reloaded on resync and on the realtime "announcement"
// events that may change it: those about the current newest, or carrying an active
// announcement newer than it (concernsNewest). null while loading,
// on error, or when there is none.
import { useResource } from '../../app/resources';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { announcementsApi } from '../../api/endpoints';
import type { Announcement, AnnouncementEvent } from '../../api/types';

const newestAnnouncementKey = 'announcements:newest';

async function loadNewest(): Promise<Announcement | null> {
  const page = await announcementsApi.search('', 1, true);
  return page.records?.[0] ?? null;
}

// newer: whether a was created after b (the server's order: created_at, then id,
// descending); unknown dates count as newer, to reload to be safe.
function newer(a: Announcement, b: Announcement): boolean {
  const ta = Date.parse(a.createdAt);
  const tb = Date.parse(b.createdAt);
  if (Number.isNaN(ta) || Number.isNaN(tb)) return true;
  return ta !== tb ? ta > tb : a.id > b.id;
}

// concernsNewest: whether an "announcement" event may change the newest active one:
// one about the current newest (changed, deactivated, deleted), or an active
// announcement newer than it (or where there was none). Unknown while loading (or for
// an event naming no announcement): reload to be safe.
export function concernsNewest(e: AnnouncementEvent, newest: Announcement | null | undefined): boolean {
  const id = e.announcement?.id ?? e.announcementId;
  if (id === undefined || newest === undefined) return true;
  if (newest !== null && newest.id === id) return true;
  const a = e.announcement;
  if (!a?.status) return false;
  return newest === null || newer(a, newest);
}

export function useNewestAnnouncement(): Announcement | null {
  const { data, reload } = useResource(newestAnnouncementKey, loadNewest);
  useRealtimeEvent<AnnouncementEvent>('announcement', (e) => {
    if (concernsNewest(e, data)) reload();
  });
  useResync(reload);
  return data ?? null;
}
