// The newest active announcement of the tenant (GET /announcements/?status=active, first
// record), shared by key and reloaded on resync and on the realtime "announcement"
// events that may change it: those about the current newest, or carrying an active
// announcement (a new or re-activated one may now be the newest). null while loading,
// on error, or when there is none.
import { useResource } from '../../app/resources';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { announcementsApi } from '../../api/endpoints';
import type { Announcement, AnnouncementEvent } from '../../api/types';

export const newestAnnouncementKey = 'announcements:newest';

async function loadNewest(): Promise<Announcement | null> {
  const page = await announcementsApi.search('', 1, true);
  return page.records?.[0] ?? null;
}

// concernsNewest: whether an "announcement" event may change the newest active one.
// Unknown while loading (or for an event naming no announcement): reload to be safe.
export function concernsNewest(e: AnnouncementEvent, newest: Announcement | null | undefined): boolean {
  if (e.announcement?.status) return true;
  const id = e.announcement?.id ?? e.announcementId;
  if (id === undefined || newest === undefined) return true;
  return newest !== null && newest.id === id;
}

export function useNewestAnnouncement(): Announcement | null {
  const { data, reload } = useResource(newestAnnouncementKey, loadNewest);
  useRealtimeEvent<AnnouncementEvent>('announcement', (e) => {
    if (concernsNewest(e, data)) reload();
  });
  useResync(reload);
  return data ?? null;
}
