import { createActor, fromPromise } from 'xstate';
import {
  applyLive,
  belongs,
  emptyFilters,
  ticketListMachine,
  type FetchPageInput,
  type ListSpec,
  type LiveListEvent,
} from './ticketList.machine';
import { TicketStore } from './ticketStore';
import type { ID, Ticket, TicketPage } from '../api/types';

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

  it("follows whaticket's room semantics: a moved delete, then the update", async () => {
    const { actor, ready, ids } = build({ status: 'open' }, [{ tickets: [t(3, { status: 'open', userId: me })], count: 1, hasMore: false }]);
    await ready();
    // Taken from the pending room: delete there (not in this list), update here.
    actor.send({
      type: 'list.batch',
      events: [
        { type: 'list.ticket', event: { action: 'delete', ticketId: 4, moved: true } },
        { type: 'list.ticket', event: { action: 'update', ticket: t(4, { status: 'open', userId: me, updatedAt: '2026-11-22T13:00:00Z' }) } },
      ],
    });
    expect(ids()).toEqual([4, 3]);
    // A tag added on a ticket that stays: delete and update in one batch keep it and its count.
    actor.send({
      type: 'list.batch',
      events: [
        { type: 'list.ticket', event: { action: 'delete', ticketId: 3, moved: true } },
        { type: 'list.ticket', event: { action: 'update', ticket: t(3, { status: 'open', userId: me }) } },
      ],
    });
    expect(ids()).toEqual([4, 3]);
    expect(actor.getSnapshot().context.count).toBe(2);
    // Handed to a colleague without showAll: the delete removes it, the update does not bring it back.
    actor.send({ type: 'list.ticket', event: { action: 'delete', ticketId: 4, moved: true } });
    actor.send({ type: 'list.ticket', event: { action: 'update', ticket: t(4, { status: 'open', userId: me + 1 }) } });
    expect(ids()).toEqual([3]);
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

// The rule one event at a time, written plainly: the reference list.batch must match.
function placeOne(ctx: { spec: ListSpec; store: TicketStore; ids: ID[]; count: number; hasMore: boolean }, ev: LiveListEvent) {
  const full = { ...ctx, filters: emptyFilters, userId: me };
  if (ev.type === 'list.contact') return;
  let tk: Ticket | undefined;
  if (ev.type === 'list.message') {
    tk = ev.event.ticket
      ? ctx.store.upsert(ev.event.ticket)
      : ctx.store.patch(ev.event.message.ticketId, { lastMessage: ev.event.message.body, updatedAt: ev.event.message.createdAt });
  } else {
    const id = ev.event.ticket?.id ?? ev.event.ticketId!;
    if (ev.event.action === 'delete') {
      if (ctx.ids.includes(id)) {
        ctx.ids = ctx.ids.filter((x) => x !== id);
        ctx.count = Math.max(0, ctx.count - 1);
      }
      return;
    }
    tk = ev.event.action === 'updateUnread' ? ctx.store.patch(id, { unreadMessages: 0 }) : ctx.store.upsert(ev.event.ticket!);
  }
  if (!tk) return;
  const had = ctx.ids.includes(tk.id);
  const keep = ctx.spec.search ? had : belongs(tk, full);
  const rest = ctx.ids.filter((x) => x !== tk.id);
  if (keep) {
    let i = 0;
    while (i < rest.length && (ctx.store.get(rest[i])?.updatedAt ?? '') > tk.updatedAt) i++;
    if (i === rest.length && ctx.hasMore && !had) {
      ctx.count++;
      return;
    }
    ctx.ids = [...rest.slice(0, i), tk.id, ...rest.slice(i)];
    if (!had) ctx.count++;
  } else if (had) {
    ctx.ids = rest;
    ctx.count = Math.max(0, ctx.count - 1);
  }
}

// A small deterministic PRNG (mulberry32), so a failure names its seed.
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe('list.batch (applyLive)', () => {
  const at = (m: number) => `2026-11-22T10:${String(m).padStart(2, '0')}:00Z`;

  function scenario(seed: number, spec: ListSpec) {
    const r = rng(seed);
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
    const tickets: Ticket[] = [];
    for (let id = 1; id <= 25; id++) tickets.push(t(id, { status: pick(['pending', 'open'] as const), updatedAt: at(Math.floor(r() * 20)), unreadMessages: 1 }));
    const shown = tickets
      .filter((x) => spec.search || x.status === 'pending')
      .filter(() => r() < 0.7)
      .sort((a, b) => (a.updatedAt > b.updatedAt ? -1 : a.updatedAt < b.updatedAt ? 1 : a.id - b.id));
    const events: LiveListEvent[] = [];
    for (let i = 0; i < 40; i++) {
      const id = 1 + Math.floor(r() * 28); // 26..28: tickets no list has seen
      const k = r();
      if (k < 0.5) events.push({ type: 'list.ticket', event: { action: 'update', ticket: t(id, { status: pick(['pending', 'open', 'closed'] as const), updatedAt: at(Math.floor(r() * 30)) }) } });
      else if (k < 0.6) events.push({ type: 'list.ticket', event: { action: 'delete', ticketId: id } });
      else if (k < 0.7) events.push({ type: 'list.ticket', event: { action: 'updateUnread', ticketId: id } });
      else if (k < 0.9)
        events.push({ type: 'list.message', event: { action: 'create', message: { id: i, ticketId: id, body: `m${i}`, fromMe: false, ack: 0, createdAt: at(Math.floor(r() * 30)) } } });
      else events.push({ type: 'list.contact', action: 'update', contact: { id, name: `c${i}`, number: '1', email: '' } });
    }
    const hasMore = r() < 0.5;
    const fresh = () => {
      const store = new TicketStore();
      store.upsertMany(tickets);
      return { spec, filters: emptyFilters, userId: me, store, ids: shown.map((x) => x.id), count: shown.length + (hasMore ? 10 : 0), hasMore };
    };
    return { events, fresh };
  }

  for (const spec of [{ status: 'pending' as const }, { search: true }]) {
    it(`does what the events would do one at a time (${spec.status ?? 'search'}, 200 random batches)`, () => {
      for (let seed = 1; seed <= 200; seed++) {
        const { events, fresh } = scenario(seed, spec);
        const want = fresh();
        for (const ev of events) placeOne(want, ev);
        const ctx = fresh();
        const got = { ids: ctx.ids, count: ctx.count, ...applyLive(ctx, events) };
        expect({ seed, ids: got.ids, count: got.count }).toEqual({ seed, ids: want.ids, count: want.count });
      }
    });
  }

  it('applies a frame of events in one snapshot', async () => {
    const tickets = Array.from({ length: 40 }, (_, i) => t(i + 1));
    const { actor, ready, ids } = build({ status: 'pending' }, [{ tickets: [...tickets].reverse(), count: 40, hasMore: true }]);
    await ready();
    let snapshots = 0;
    const sub = actor.subscribe(() => snapshots++);
    actor.send({
      type: 'list.batch',
      events: [
        { type: 'list.ticket', event: { action: 'update', ticket: t(3, { updatedAt: '2026-11-22T11:00:00Z' }) } },
        { type: 'list.ticket', event: { action: 'update', ticket: t(7, { updatedAt: '2026-11-22T11:01:00Z' }) } },
        { type: 'list.ticket', event: { action: 'delete', ticketId: 40 } },
        { type: 'list.ticket', event: { action: 'update', ticket: t(99, { updatedAt: '2026-11-22T09:00:00Z' }) } },
      ],
    });
    sub.unsubscribe();
    expect(snapshots).toBe(1);
    expect(ids().slice(0, 4)).toEqual([7, 3, 39, 38]);
    expect(ids()).not.toContain(40);
    // 99 is older than every loaded row and more pages are due: counted, not shown.
    expect(ids()).not.toContain(99);
    expect(ids()).toHaveLength(39);
    expect(actor.getSnapshot().context.count).toBe(40);
  });

  it('leaves ids alone when no event concerns the list', () => {
    const store = new TicketStore();
    store.upsertMany([t(1), t(2)]);
    const ctx = { spec: { status: 'pending' as const }, filters: emptyFilters, userId: me, store, ids: [2, 1], count: 2, hasMore: false };
    expect(applyLive(ctx, [{ type: 'list.ticket', event: { action: 'update', ticket: t(5, { status: 'closed' }) } }])).toEqual({});
    expect(applyLive(ctx, [{ type: 'list.ticket', event: { action: 'delete', ticketId: 9 } }])).toEqual({});
  });
});

describe('belongs', () => {
  const ctx = { spec: { status: 'open' as const }, filters: emptyFilters, userId: me };
  it.each([
    ['my open ticket', t(1, { status: 'open', userId: me }), ctx, true],
    ['someone else’s open ticket without showAll', t(1, { status: 'open', userId: 2 }), ctx, false],
    ['someone else’s with showAll', t(1, { status: 'open', userId: 2 }), { ...ctx, filters: { ...emptyFilters, showAll: true } }, true],
    ['other status', t(1, { status: 'closed', userId: me }), ctx, false],
    ['queue filtered out', t(1, { status: 'open', userId: 2, queueId: 4 }), { ...ctx, filters: { ...emptyFilters, showAll: true, queueIds: [3] } }, false],
    // The open tab without show-all is one's own tickets, whatever their queue (as the server lists it).
    ['my open ticket in another queue', t(1, { status: 'open', userId: me, queueId: 4 }), { ...ctx, filters: { ...emptyFilters, queueIds: [3] } }, true],
    ['every tag given', t(1, { status: 'open', userId: me, tags: [{ id: 7, name: 'x', color: '#000' }] }), { ...ctx, filters: { ...emptyFilters, tags: [7, 8] } }, false],
    ['pending ticket moved to a queue the viewer is not in', t(1, { queueId: 4 }), { spec: { status: 'pending' as const }, filters: emptyFilters, userId: me, viewer: { userId: me, companyId: 1, profile: 'user', queueIds: [3] } }, false],
    ['pending ticket in the viewer’s queue', t(1, { queueId: 3 }), { spec: { status: 'pending' as const }, filters: emptyFilters, userId: me, viewer: { userId: me, companyId: 1, profile: 'user', queueIds: [3] } }, true],
    ['no queue passes the queue filter', t(1, { status: 'open', userId: me }), { ...ctx, filters: { ...emptyFilters, queueIds: [3] } }, true],
    ['tag filter', t(1, { status: 'open', userId: me, tags: [{ id: 7, name: 'x', color: '#000' }] }), { ...ctx, filters: { ...emptyFilters, tags: [7] } }, true],
    ['user filter', t(1, { status: 'open', userId: me }), { ...ctx, filters: { ...emptyFilters, showAll: true, users: [9] } }, false],
  ])('%s', (_, ticket, c, want) => {
    expect(belongs(ticket, c)).toBe(want);
  });
});
