// One ticket list of the ticket manager (open/assigned, pending, closed, search, and
// the notification bell's unread list).
//
//   loading ──page 1──▶ ready ──list.nextPage (hasMore)──▶ loadingMore ──▶ ready
//   any ──list.setFilters | list.refresh | list.resync──▶ loading (page 1 again)
//   any ──list.ticket | list.message | list.contact──▶ same state, list patched in place
//   any ──list.batch (those three, many at once)──▶ same state, one new ids array
//
// Live events never refetch: a ticket that now matches the list's status and filters
// is put in order by updatedAt (newest first), one that no longer matches leaves, and
// `count` follows. A search list only updates rows it already shows.
//
// The tickets themselves live in the TicketStore (the id → ticket map); the context
// holds only the ordered ids. The UI feeds socket events in as one list.batch per
// animation frame (features/tickets/liveBatch.ts): applyLive walks the ids once per
// batch, however many events it holds, instead of copying the array once per event.
import { assign, fromPromise, setup } from 'xstate';
import type { AppMessageEvent, Contact, ID, Ticket, TicketEvent, TicketPage, TicketStatus } from '../api/types';
import { ticketStore as defaultStore, type TicketStore } from './ticketStore';
import { isGuest, seesTicket, type Viewer } from '../app/rules';
import { actions, can } from '../app/permissions';

export interface TicketFilters {
  searchParam: string;
  showAll: boolean;
  queueIds: ID[];
  tags: ID[];
  users: ID[];
}

export const emptyFilters: TicketFilters = { searchParam: '', showAll: false, queueIds: [], tags: [], users: [] };

export interface ListSpec {
  status?: TicketStatus;
  withUnreadMessages?: boolean;
  search?: boolean;
}

export interface TicketListContext {
  spec: ListSpec;
  filters: TicketFilters;
  userId: ID;
  // viewer, when known, is who the list is for: a live ticket they may not see
  // (engine.SeesTicket) leaves the list, as the server's next page would leave it out.
  viewer?: Viewer;
  store: TicketStore;
  ids: ID[];
  count: number;
  hasMore: boolean;
  pageNumber: number;
  cursor: string | null;
  error: unknown;
}

export interface TicketListInput {
  spec: ListSpec;
  filters?: TicketFilters;
  userId: ID;
  viewer?: Viewer;
  store?: TicketStore;
}

export interface FetchPageInput {
  spec: ListSpec;
  filters: TicketFilters;
  pageNumber: number;
  cursor: string | null;
}

export type TicketListEvent =
  | { type: 'list.refresh' }
  | { type: 'list.resync' }
  | { type: 'list.nextPage' }
  | { type: 'list.setFilters'; filters: TicketFilters }
  | { type: 'list.ticket'; event: TicketEvent }
  | { type: 'list.message'; event: AppMessageEvent }
  | { type: 'list.contact'; contact: Contact; action: 'update' }
  | { type: 'list.batch'; events: LiveListEvent[] };

// The live events, which patch the list in place (a ticket 'reload' is not one: it
// refetches, and is sent on its own).
export type LiveListEvent =
  | { type: 'list.ticket'; event: TicketEvent }
  | { type: 'list.message'; event: AppMessageEvent }
  | { type: 'list.contact'; contact: Contact; action: 'update' };

// belongs says whether the list, as filtered, shows the ticket: engine.ListsTicket
// (outside a search), checked against the golden file the Go tests write
// (src/app/rules.test.ts). Without a viewer (the profile and queues unknown) the
// visibility part is left to the server and showAll is taken as allowed.
export function belongs(t: Ticket, ctx: Pick<TicketListContext, 'spec' | 'filters' | 'userId' | 'viewer'>): boolean {
  const { spec, filters, viewer } = ctx;
  if (spec.withUnreadMessages && (!(t.unreadMessages > 0) || t.status === 'closed')) return false;
  if (spec.status && t.status !== spec.status) return false;
  if (viewer && !seesTicket(viewer, t)) return false;
  const privileged = viewer ? can(viewer.profile, actions.showAllTickets) : true;
  const queue = t.queueId ?? 0;
  const mine = t.userId != null && t.userId !== 0 && t.userId === ctx.userId;
  const guest = isGuest(t, ctx.userId);
  // The open tab without show-all is one's own tickets and those one is a guest of: the
  // queue checkboxes change nothing there.
  const pinned = t.status === 'open' && !(filters.showAll && privileged);
  if (pinned && !mine && !guest) return false;
  if (t.status === 'pending' && !privileged && viewer && queue !== 0 && !viewer.queueIds.includes(queue) && !guest) return false;
  // Tickets with no queue pass the queue checkboxes, and so do one's own unless pending.
  if (filters.queueIds.length && !pinned && queue !== 0 && !filters.queueIds.includes(queue) && !(mine && t.status !== 'pending')) return false;
  // Every tag given, as the server filters (engine.TicketQuery.TagIDs).
  if (filters.tags.length && !filters.tags.every((id) => (t.tags ?? []).some((tag) => tag.id === id))) return false;
  if (filters.users.length && (t.userId == null || !filters.users.includes(t.userId))) return false;
  return true;
}

function newer(a: Ticket | undefined, b: Ticket): boolean {
  return !!a && a.updatedAt > b.updatedAt;
}

type LiveContext = Pick<TicketListContext, 'spec' | 'filters' | 'userId' | 'viewer' | 'store' | 'ids' | 'count' | 'hasMore'>;

// touch applies one live event to the store and says which ticket it concerns: the
// ticket as it now is, or `deleted` when it is gone. Null: nothing for the list.
function touch(store: TicketStore, ev: LiveListEvent): { id: ID; ticket?: Ticket; deleted?: true } | null {
  if (ev.type === 'list.contact') {
    store.patchContact(ev.contact);
    return null;
  }
  if (ev.type === 'list.message') {
    const { ticket, message } = ev.event;
    let t: Ticket | undefined;
    if (ticket) t = store.upsert(ticket);
    else if (ev.event.action === 'create') t = store.patch(message.ticketId, { lastMessage: message.body, updatedAt: message.createdAt });
    return t ? { id: t.id, ticket: t } : null;
  }
  const e = ev.event;
  const id = e.ticket?.id ?? e.ticketId;
  if (id == null || e.action === 'reload') return null;
  if (e.action === 'delete') return { id, deleted: true };
  if (e.action === 'updateUnread') {
    const t = store.patch(id, { unreadMessages: 0 });
    return t ? { id, ticket: t } : null;
  }
  return e.ticket ? { id, ticket: store.upsert(e.ticket) } : null;
}

// applyLive applies live events, in order, to a list: what each does is what it would
// do alone (a ticket that matches goes to its updatedAt place, newest first; one that
// no longer matches leaves; one older than every loaded row, with pages still to come,
// is only counted: it arrives with its page), but the ids are rebuilt once: the rows
// the events left alone keep their order, and the touched ones that stay are merged in
// by updatedAt (between equal times, the later event above). Returns only what changed.
export function applyLive(ctx: LiveContext, events: readonly LiveListEvent[]): Partial<Pick<TicketListContext, 'ids' | 'count'>> {
  let members: Set<ID> | null = null; // the list's ids as the events so far left it
  const inList = (id: ID) => (members ??= new Set(ctx.ids)).has(id);
  const placed = new Map<ID, Ticket>(); // touched and in the list, in event order
  const gone = new Set<ID>(); // touched and out of the list
  let count = ctx.count;
  // True when every row in the list is newer than t (the oldest untouched row is the
  // last untouched id: the list is in updatedAt order).
  const olderThanAll = (t: Ticket) => {
    for (let j = ctx.ids.length - 1; j >= 0; j--) {
      const id = ctx.ids[j];
      if (placed.has(id) || gone.has(id)) continue;
      if (!newer(ctx.store.get(id), t)) return false;
      break;
    }
    for (const p of placed.values()) if (!newer(p, t)) return false;
    return true;
  };
  const leave = (id: ID) => {
    members!.delete(id);
    placed.delete(id);
    gone.add(id);
    count = Math.max(0, count - 1);
  };
  for (const ev of events) {
    const hit = touch(ctx.store, ev);
    if (!hit) continue;
    const { id, ticket: t } = hit;
    const had = inList(id);
    if (!t) {
      if (had) leave(id);
      continue;
    }
    const keep = ctx.spec.search ? had : belongs(t, ctx);
    if (keep) {
      if (!had && ctx.hasMore && olderThanAll(t)) {
        count++;
        continue;
      }
      members!.add(id);
      placed.delete(id); // re-inserted last: the latest event wins ties
      placed.set(id, t);
      gone.delete(id);
      if (!had) count++;
    } else if (had) {
      leave(id);
    }
  }
  if (placed.size === 0 && gone.size === 0) return count === ctx.count ? {} : { count };
  const rest = ctx.ids.filter((id) => !placed.has(id) && !gone.has(id));
  const incoming = [...placed.values()].map((t, order) => ({ t, order }));
  incoming.sort((a, b) => (a.t.updatedAt === b.t.updatedAt ? b.order - a.order : a.t.updatedAt > b.t.updatedAt ? -1 : 1));
  const ids: ID[] = [];
  let j = 0;
  for (const { t } of incoming) {
    while (j < rest.length && newer(ctx.store.get(rest[j]), t)) ids.push(rest[j++]);
    ids.push(t.id);
  }
  while (j < rest.length) ids.push(rest[j++]);
  return { ids, count };
}

export const ticketListMachine = setup({
  types: {
    context: {} as TicketListContext,
    events: {} as TicketListEvent,
    input: {} as TicketListInput,
  },
  actors: {
    fetchPage: fromPromise<TicketPage, FetchPageInput>(async () => {
      throw new Error('ticketList: provide actors.fetchPage');
    }),
  },
  guards: {
    hasMore: ({ context }) => context.hasMore,
    isReload: ({ event }) => event.type === 'list.ticket' && event.event.action === 'reload',
  },
  actions: {
    reset: assign({ pageNumber: 1, cursor: null, error: null }),
    setFilters: assign({
      filters: ({ context, event }) => (event.type === 'list.setFilters' ? event.filters : context.filters),
    }),
    applyFirstPage: assign(({ context }, { page }: { page: TicketPage }) => {
      context.store.upsertMany(page.tickets);
      return {
        ids: dedupe(page.tickets.map((t) => t.id)),
        count: page.count,
        hasMore: page.hasMore,
        pageNumber: 1,
        cursor: page.nextCursor || null,
      };
    }),
    applyNextPage: assign(({ context }, { page }: { page: TicketPage }) => {
      context.store.upsertMany(page.tickets);
      const seen = new Set(context.ids);
      const more = page.tickets.map((t) => t.id).filter((id) => !seen.has(id));
      return {
        ids: [...context.ids, ...more],
        count: page.count,
        hasMore: page.hasMore,
        pageNumber: context.pageNumber + 1,
        cursor: page.nextCursor || null,
      };
    }),
    setError: assign({ error: (_, params: { error: unknown }) => params.error }),
    // One live event, or a batch of them (list.batch): see applyLive.
    applyLive: assign(({ context, event }) => {
      if (event.type === 'list.batch') return applyLive(context, event.events);
      if (event.type === 'list.ticket' || event.type === 'list.message' || event.type === 'list.contact') return applyLive(context, [event]);
      return {};
    }),
  },
}).createMachine({
  id: 'ticketList',
  context: ({ input }) => ({
    spec: input.spec,
    filters: input.filters ?? emptyFilters,
    userId: input.userId,
    viewer: input.viewer,
    store: input.store ?? defaultStore,
    ids: [],
    count: 0,
    hasMore: false,
    pageNumber: 1,
    cursor: null,
    error: null,
  }),
  initial: 'loading',
  on: {
    'list.refresh': { target: '.loading', actions: 'reset' },
    'list.resync': { target: '.loading', actions: 'reset' },
    'list.setFilters': { target: '.loading', actions: ['setFilters', 'reset'] },
    // 'reload' asks every list to fetch again (spec section 4, live events).
    'list.ticket': [
      { guard: 'isReload', target: '.loading', actions: 'reset' },
      { actions: 'applyLive' },
    ],
    'list.message': { actions: 'applyLive' },
    'list.contact': { actions: 'applyLive' },
    'list.batch': { actions: 'applyLive' },
  },
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        src: 'fetchPage',
        input: ({ context }) => ({ spec: context.spec, filters: context.filters, pageNumber: 1, cursor: null }),
        onDone: { target: 'ready', actions: { type: 'applyFirstPage', params: ({ event }) => ({ page: event.output }) } },
        onError: { target: 'failed', actions: { type: 'setError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    ready: {
      on: { 'list.nextPage': { guard: 'hasMore', target: 'loadingMore' } },
    },
    loadingMore: {
      tags: ['loadingMore'],
      invoke: {
        src: 'fetchPage',
        input: ({ context }) => ({
          spec: context.spec,
          filters: context.filters,
          pageNumber: context.pageNumber + 1,
          cursor: context.cursor,
        }),
        onDone: { target: 'ready', actions: { type: 'applyNextPage', params: ({ event }) => ({ page: event.output }) } },
        onError: { target: 'ready', actions: { type: 'setError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    failed: {},
  },
});

function dedupe(ids: ID[]): ID[] {
  return [...new Set(ids)];
}
