// useTicketList runs one ticket list machine with the real api and feeds it the socket's
// ticket, appMessage and contact events (and resync), so the list stays live without
// refetching. The events reach the machine as one list.batch per animation frame
// (liveBatch.ts).
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { useActorRef } from '@xstate/react';
import { fromPromise, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { frameBatched } from '../../app/frame';
import { ticketListMachine, type ListSpec, type LiveListEvent, type TicketFilters } from '../../machines/ticketList.machine';
import { liveBatcher, type LiveBatcher } from './liveBatch';
import { ticketsApi } from '../../api/endpoints';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import type { AppMessageEvent, ContactEvent, TicketEvent } from '../../api/types';
import type { Viewer } from '../../app/rules';

export const liveTicketListMachine = ticketListMachine.provide({
  actors: {
    fetchPage: fromPromise(({ input, signal }) =>
      ticketsApi.list(
        {
          pageNumber: input.pageNumber,
          cursor: input.cursor,
          status: input.spec.status,
          withUnreadMessages: input.spec.withUnreadMessages,
          searchParam: input.filters.searchParam,
          showAll: input.filters.showAll,
          queueIds: input.filters.queueIds,
          tags: input.filters.tags,
          users: input.filters.users,
        },
        signal,
      ),
    ),
  },
});

// useTicketListActor runs the machine and keeps it live, without subscribing the calling
// component to the list: a component that only hosts lists (the ticket manager) does not
// re-render on every ticket update. Read the list with useListView where it is drawn.
export function useTicketListActor(spec: ListSpec, filters: TicketFilters, viewer: Viewer): TicketListActor {
  const actor = useActorRef(liveTicketListMachine, { input: { spec, filters, userId: viewer.userId, viewer } });

  const filtersKey = JSON.stringify(filters);
  useEffect(() => {
    const current = actor.getSnapshot().context.filters;
    if (JSON.stringify(current) !== filtersKey) actor.send({ type: 'list.setFilters', filters: JSON.parse(filtersKey) });
  }, [actor, filtersKey]);

  const batch = useRef<LiveBatcher<LiveListEvent> | null>(null);
  useEffect(() => {
    const b = liveBatcher<LiveListEvent>((events) => actor.send({ type: 'list.batch', events }));
    batch.current = b;
    return () => {
      b.dispose();
      if (batch.current === b) batch.current = null;
    };
  }, [actor]);
  const live = (e: LiveListEvent) => (batch.current ? batch.current.push(e) : actor.send(e));
  // A refetch (ticket 'reload', resync) goes at once, after the events waiting before it.
  const now = (e: { type: 'list.ticket'; event: TicketEvent } | { type: 'list.resync' }) => {
    batch.current?.flush();
    actor.send(e);
  };

  useRealtimeEvent<TicketEvent>('ticket', (event) =>
    event.action === 'reload' ? now({ type: 'list.ticket', event }) : live({ type: 'list.ticket', event }),
  );
  useRealtimeEvent<AppMessageEvent>('appMessage', (event) => live({ type: 'list.message', event }));
  useRealtimeEvent<ContactEvent>('contact', (e) => {
    if (e.action !== 'delete') live({ type: 'list.contact', contact: e.contact, action: 'update' });
  });
  useResync(() => now({ type: 'list.resync' }));
  return actor;
}

export type TicketListActor = ActorRefFrom<typeof liveTicketListMachine>;
type ListSnapshot = SnapshotFrom<typeof liveTicketListMachine>;

// useListSelector reads the list like @xstate/react's useSelector, but re-renders at most
// once per animation frame (app/frame.ts): with a stream of ticket events the list draws
// the latest order each frame instead of once per event.
function useListSelector<T>(actor: TicketListActor, select: (s: ListSnapshot) => T): T {
  const subscribe = useMemo(
    () =>
      frameBatched((onChange) => {
        const sub = actor.subscribe(onChange);
        return () => sub.unsubscribe();
      }),
    [actor],
  );
  const get = () => select(actor.getSnapshot());
  return useSyncExternalStore(subscribe, get, get);
}

const selectIds = (s: ListSnapshot) => s.context.ids;
const selectCount = (s: ListSnapshot) => s.context.count;
const selectHasMore = (s: ListSnapshot) => s.context.hasMore;
const selectLoading = (s: ListSnapshot) => s.hasTag('loading');
const selectLoadingMore = (s: ListSnapshot) => s.hasTag('loadingMore');
const selectFailed = (s: ListSnapshot) => s.matches('failed');

export function useListView(actor: TicketListActor) {
  const ids = useListSelector(actor, selectIds);
  const count = useListSelector(actor, selectCount);
  const hasMore = useListSelector(actor, selectHasMore);
  const loading = useListSelector(actor, selectLoading);
  const loadingMore = useListSelector(actor, selectLoadingMore);
  const failed = useListSelector(actor, selectFailed);
  return { ids, count, hasMore, loading, loadingMore, failed };
}

export function useListCount(actor: TicketListActor): number {
  return useListSelector(actor, selectCount);
}

export function useTicketList(spec: ListSpec, filters: TicketFilters, viewer: Viewer) {
  const actor = useTicketListActor(spec, filters, viewer);
  return { actor, ...useListView(actor) };
}
