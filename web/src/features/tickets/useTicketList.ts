// useTicketList runs one ticket list machine with the real api and feeds it the socket's
// ticket, appMessage and contact events (and resync), so the list stays live without
// refetching.
import { useEffect } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { ticketListMachine, type ListSpec, type TicketFilters } from '../../machines/ticketList.machine';
import { ticketsApi } from '../../api/endpoints';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import type { AppMessageEvent, ContactEvent, ID, TicketEvent } from '../../api/types';

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

export function useTicketList(spec: ListSpec, filters: TicketFilters, userId: ID) {
  const actor = useActorRef(liveTicketListMachine, { input: { spec, filters, userId } });

  const filtersKey = JSON.stringify(filters);
  useEffect(() => {
    const current = actor.getSnapshot().context.filters;
    if (JSON.stringify(current) !== filtersKey) actor.send({ type: 'list.setFilters', filters: JSON.parse(filtersKey) });
  }, [actor, filtersKey]);

  useRealtimeEvent<TicketEvent>('ticket', (event) => actor.send({ type: 'list.ticket', event }));
  useRealtimeEvent<AppMessageEvent>('appMessage', (event) => actor.send({ type: 'list.message', event }));
  useRealtimeEvent<ContactEvent>('contact', (e) => actor.send({ type: 'list.contact', contact: e.contact, action: e.action }));
  useResync(() => actor.send({ type: 'list.resync' }));

  const ids = useSelector(actor, (s) => s.context.ids);
  const count = useSelector(actor, (s) => s.context.count);
  const hasMore = useSelector(actor, (s) => s.context.hasMore);
  const loading = useSelector(actor, (s) => s.hasTag('loading'));
  const loadingMore = useSelector(actor, (s) => s.hasTag('loadingMore'));
  const failed = useSelector(actor, (s) => s.matches('failed'));
  return { actor, ids, count, hasMore, loading, loadingMore, failed };
}
