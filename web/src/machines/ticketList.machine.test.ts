import { createActor, fromPromise } from 'xstate';
import { belongs, emptyFilters, ticketListMachine, type FetchPageInput, type ListSpec } from './ticketList.machine';
import { TicketStore } from './ticketStore';
import type { Ticket, TicketPage } from '../api/types';

const me = 1;

function t(id: number, over: Partial<Ticket> = {}): Ticket {
  return {
    id,
    status: 'pending',
    contactId: id,
    unreadMessages: 0,
    updatedAt: `2026-11-22T10:${String(id).padStart(2, '0')}:00Z`,
    ...over,
  };
}

function build(spec: ListSpec, pages: TicketPage[], filters = emptyFilters) {
  const store = new TicketStore();
  const requests: FetchPageInput[] = [];
  const machine = ticketListMachine.provide({
    actors: {
      fetchPage: fromPromise(async ({ input }) => {
        requests.push(input);
        return pages[input.pageNumber - 1] ?? { tickets: [], count: 0, hasMore: false };
      }),
    },
  });
  const actor = createActor(machine, { input: { spec, filters, userId: me, store } });
  actor.start();
  const ready = () => vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
  return { actor, store, requests, ready, ids: () => actor.getSnapshot().context.ids };
}

describe('ticket list machine', () => {
  it('loads the first page and then the next while hasMore', async () => {
    const { actor, ready, ids, requests } = build({ status: 'pending' }, [
      { tickets: [t(3), t(2)], count: 3, hasMore: true },
      { tickets: [t(2), t(1)], count: 3, hasMore: false },
    ]);
    await ready();
    expect(ids()).toEqual([3, 2]);
    actor.send({ type: 'list.nextPage' });
    await ready();
    expect(ids()).toEqual([3, 2, 1]);
    expect(actor.getSnapshot().context.hasMore).toBe(false);
    actor.send({ type: 'list.nextPage' });
    expect(requests.map((r) => r.pageNumber)).toEqual([1, 2]);
  });

  it('sends the previous page’s nextCursor for the next page', async () => {
    const { actor, ready, requests } = build({ status: 'pending' }, [
      { tickets: [t(3)], count: 2, hasMore: true, nextCursor: 'c1' },
      { tickets: [t(2)], count: 2, hasMore: false },
    ]);
    await ready();
    actor.send({ type: 'list.nextPage' });
    await ready();
    expect(requests.map((r) => [r.pageNumber, r.cursor])).toEqual([
      [1, null],
      [2, 'c1'],
    ]);
  });

  it('puts a new matching ticket on top and counts it, without refetching', async () => {
    const { actor, ready, ids, requests } = build({ status: 'pending' }, [{ tickets: [t(5), t(4)], count: 2, hasMore: false }]);
    await ready();
    actor.send({ type: 'list.ticket', event: { action: 'update', ticket: t(9) } });
    expect(ids()).toEqual([9, 5, 4]);
    expect(actor.getSnapshot().context.count).toBe(3);
    expect(requests).toHaveLength(1);
  });

  it('moves an updated ticket to its place and removes one whose status changed', async () => {
    const { actor, ready, ids, store } = build({ status: 'pending' }, [{ tickets: [t(5), t(4), t(3)], count: 3, hasMore: false }]);
    await ready();
    actor.send({ type: 'list.ticket', event: { action: 'update', ticket: t(3, { updatedAt: '2026-11-22T11:00:00Z' }) } });
    expect(ids()).toEqual([3, 5, 4]);
    actor.send({ type: 'list.ticket', event: { action: 'update', ticket: t(5, { status: 'open', userId: me }) } });
    expect(ids()).toEqual([3, 4]);
    expect(actor.getSnapshot().context.count).toBe(2);
    expect(store.get(5)?.status).toBe('open');
  });

  it('delete removes the row', async () => {
    const { actor, ready, ids } = build({ status: 'pending' }, [{ tickets: [t(2), t(1)], count: 2, hasMore: false }]);
    await ready();
    actor.send({ type: 'list.ticket', event: { action: 'delete', ticketId: 2 } });
    expect(ids()).toEqual([1]);
    expect(actor.getSnapshot().context.count).toBe(1);
  });

  it('the unread list drops a ticket on updateUnread', async () => {
    const { actor, ready, ids } = build({ withUnreadMessages: true }, [
      { tickets: [t(2, { unreadMessages: 3, status: 'open' })], count: 1, hasMore: false },
    ]);
    await ready();
    actor.send({ type: 'list.ticket', event: { action: 'updateUnread', ticketId: 2 } });
    expect(ids()).toEqual([]);
  });

  it('a message event with its ticket lifts the ticket', async () => {
    const { actor, ready, ids, store } = build({ status: 'pending' }, [{ tickets: [t(5), t(4)], count: 2, hasMore: false }]);
    await ready();
    actor.send({
      type: 'list.message',
      event: {
        action: 'create',
        message: { id: 1, ticketId: 4, body: 'oi', fromMe: false, ack: 0, createdAt: '2026-11-22T12:00:00Z' },
        ticket: t(4, { unreadMessages: 1, updatedAt: '2026-11-22T12:00:00Z', lastMessage: 'oi' }),
      },
    });
    expect(ids()).toEqual([4, 5]);
    expect(store.get(4)?.unreadMessages).toBe(1);
  });

  it('search lists only update rows they show', async () => {
    const { actor, ready, ids } = build({ search: true }, [{ tickets: [t(2)], count: 1, hasMore: false }], {
      ...emptyFilters,
      searchParam: 'ana',
    });
    await ready();
    actor.send({ type: 'list.ticket', event: { action: 'update', ticket: t(8) } });
    expect(ids()).toEqual([2]);
  });

  it('new filters reload from page 1; resync refetches', async () => {
    const { actor, ready, requests } = build({ status: 'open' }, [{ tickets: [], count: 0, hasMore: false }]);
    await ready();
    actor.send({ type: 'list.setFilters', filters: { ...emptyFilters, tags: [3] } });
    await ready();
    actor.send({ type: 'list.resync' });
    await ready();
    expect(requests).toHaveLength(3);
    expect(requests[1].filters.tags).toEqual([3]);
  });

  it("a ticket 'reload' event refetches", async () => {
    const { actor, ready, requests } = build({ status: 'open' }, [{ tickets: [], count: 0, hasMore: false }]);
    await ready();
    actor.send({ type: 'list.ticket', event: { action: 'reload' } });
    await ready();
    expect(requests).toHaveLength(2);
  });

  it('contact updates reach the rows', async () => {
    const { actor, ready, store } = build({ status: 'pending' }, [
      { tickets: [t(2, { contact: { id: 2, name: 'Old', number: '1', email: '' } })], count: 1, hasMore: false },
    ]);
    await ready();
    actor.send({ type: 'list.contact', action: 'update', contact: { id: 2, name: 'New', number: '1', email: '' } });
    expect(store.get(2)?.contact?.name).toBe('New');
  });
});

describe('belongs', () => {
  const ctx = { spec: { status: 'open' as const }, filters: emptyFilters, userId: me };
  it.each([
    ['my open ticket', t(1, { status: 'open', userId: me }), ctx, true],
    ['someone else’s open ticket without showAll', t(1, { status: 'open', userId: 2 }), ctx, false],
    ['someone else’s with showAll', t(1, { status: 'open', userId: 2 }), { ...ctx, filters: { ...emptyFilters, showAll: true } }, true],
    ['other status', t(1, { status: 'closed', userId: me }), ctx, false],
    ['queue filtered out', t(1, { status: 'open', userId: me, queueId: 4 }), { ...ctx, filters: { ...emptyFilters, queueIds: [3] } }, false],
    ['no queue passes the queue filter', t(1, { status: 'open', userId: me }), { ...ctx, filters: { ...emptyFilters, queueIds: [3] } }, true],
    ['tag filter', t(1, { status: 'open', userId: me, tags: [{ id: 7, name: 'x', color: '#000' }] }), { ...ctx, filters: { ...emptyFilters, tags: [7] } }, true],
    ['user filter', t(1, { status: 'open', userId: me }), { ...ctx, filters: { ...emptyFilters, showAll: true, users: [9] } }, false],
  ])('%s', (_, ticket, c, want) => {
    expect(belongs(ticket, c)).toBe(want);
  });
});
