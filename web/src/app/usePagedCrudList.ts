// usePagedCrudList: what the searchable reference-data list pages (announcements,
// quick answers, tags, users, contacts) share around a paged list machine: the
// debounced search box, the realtime event that upserts or removes rows (an upsert only
// lands when the row is listed or matches the search), resync (refetch; contacts opt
// out), the next page on scroll, and the row being edited or deleted.
import { useEffect, useState, type UIEvent } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import type { createPagedListMachine, Identified } from '../machines/pagedList.machine';
import type { ServerEventName } from '../api/socket';
import { useDebounced } from './hooks';
import { useRealtimeEvent, useResync } from './realtime';
import { nearBottom } from './scroll';

export type PagedListMachine<T extends Identified> = ReturnType<typeof createPagedListMachine<T>>;

// What a realtime event does to the list: remove a row, upsert one, or nothing.
export type LiveChange<T> = { remove: number } | { upsert: T } | null;

export function usePagedCrudList<T extends Identified, E>({
  machine,
  event,
  change,
  matches,
  refreshOnResync = true,
}: {
  machine: PagedListMachine<T>;
  event: ServerEventName;
  change: (e: E) => LiveChange<T>;
  matches: (item: T, search: string) => boolean;
  /** Refetch when the server could not replay missed events (default true). */
  refreshOnResync?: boolean;
}) {
  const list = useActorRef(machine, { input: {} });
  const items = useSelector(list, (s) => s.context.items);
  const hasMore = useSelector(list, (s) => s.context.hasMore);
  const loading = useSelector(list, (s) => s.hasTag('loading'));
  const loadingMore = useSelector(list, (s) => s.hasTag('loadingMore'));
  const [text, setText] = useState('');
  const search = useDebounced(text.trim(), 500);
  const [editing, setEditing] = useState<T | 'new' | null>(null);
  const [deleting, setDeleting] = useState<T | null>(null);

  useEffect(() => {
    if (list.getSnapshot().context.searchParam !== search) list.send({ type: 'list.search', searchParam: search });
  }, [list, search]);

  useRealtimeEvent<E>(event, (e) => {
    const c = change(e);
    if (!c) return;
    if ('remove' in c) {
      list.send({ type: 'list.remove', id: c.remove });
      return;
    }
    const ctx = list.getSnapshot().context;
    if (ctx.items.some((x) => x.id === c.upsert.id) || matches(c.upsert, ctx.searchParam)) list.send({ type: 'list.upsert', item: c.upsert });
  });
  useResync(() => {
    if (refreshOnResync) list.send({ type: 'list.refresh' });
  });

  const onScroll = (e: UIEvent<HTMLDivElement>) => {
    if (hasMore && !loadingMore && nearBottom(e.currentTarget)) list.send({ type: 'list.nextPage' });
  };
  const upsert = (item: T) => list.send({ type: 'list.upsert', item });
  const remove = (id: number) => list.send({ type: 'list.remove', id });

  return { items, loading, text, setText, editing, setEditing, deleting, setDeleting, onScroll, upsert, remove };
}
