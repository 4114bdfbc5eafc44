// The list of the announcements popover (spec sections 2 and 9): the active
// announcements, loaded when the popover opens and kept current by the realtime
// "announcement" events. 30 s after the popover closes the list is cleared
// (announcementListTtlMs), so the next opening reads it afresh and a closed popover
// holds no stale copy. unseen counts the active announcements created since the
// popover was last opened (the button's badge).
import { useEffect, useRef, useState } from 'react';
import { announcementsApi } from '../../api/endpoints';
import type { Announcement, AnnouncementEvent } from '../../api/types';
import { useRealtimeEvent, useResync } from '../../app/realtime';

export const announcementListTtlMs = 30_000;

export type AnnouncementListState =
  | { status: 'idle' } // nothing loaded (never, or cleared)
  | { status: 'loading' }
  | { status: 'error' }
  | { status: 'ready'; records: Announcement[] };

// applyAnnouncementEvent folds an "announcement" event into a loaded list: a new
// active one goes first, a change replaces (or drops, when deactivated), a delete drops.
export function applyAnnouncementEvent(records: Announcement[], e: AnnouncementEvent): Announcement[] {
  const id = e.announcement?.id ?? e.announcementId;
  const rest = records.filter((a) => a.id !== id);
  if (e.action === 'delete' || !e.announcement?.status) return rest;
  if (e.action === 'create') return [e.announcement, ...rest];
  return records.some((a) => a.id === id) ? records.map((a) => (a.id === id ? e.announcement! : a)) : [e.announcement, ...rest];
}

export function useAnnouncementList(open: boolean): { state: AnnouncementListState; unseen: number } {
  const [state, setState] = useState<AnnouncementListState>({ status: 'idle' });
  const [unseen, setUnseen] = useState(0);
  // request numbers the loads: an answer counts only while no later load or clearing
  // came after it.
  const request = useRef(0);

  // Load on opening when nothing is held.
  useEffect(() => {
    if (!open || state.status !== 'idle') return;
    const n = ++request.current;
    setState({ status: 'loading' });
    announcementsApi
      .search('', 1, true)
      .then((page) => request.current === n && setState({ status: 'ready', records: page.records ?? [] }))
      .catch(() => request.current === n && setState({ status: 'error' }));
  }, [open, state.status]);

  // Opening reads the new ones: the badge goes.
  useEffect(() => {
    if (open) setUnseen(0);
  }, [open]);

  // Cleared 30 s after the popover closed.
  useEffect(() => {
    if (open || state.status === 'idle' || state.status === 'loading') return;
    const timer = setTimeout(() => {
      request.current++;
      setState({ status: 'idle' });
    }, announcementListTtlMs);
    return () => clearTimeout(timer);
  }, [open, state.status]);

  useRealtimeEvent<AnnouncementEvent>('announcement', (e) => {
    if (e.action === 'create' && e.announcement?.status && !open) setUnseen((n) => n + 1);
    setState((s) => (s.status === 'ready' ? { status: 'ready', records: applyAnnouncementEvent(s.records, e) } : s));
  });
  // After a resync the held list may be stale: drop it (an open popover reloads).
  useResync(() => {
    request.current++;
    setState({ status: 'idle' });
  });
  return { state, unseen };
}
