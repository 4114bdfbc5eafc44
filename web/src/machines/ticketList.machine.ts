// One ticket list of the ticket manager (open/assigned, pending, closed, search, and
// the notification bell's unread list).
//
//   loading ──page 1──▶ ready ──list.nextPage (hasMore)──▶ loadingMore ──▶ ready
//   any ──list.setFilters | list.refresh | list.resync──▶ loading (page 1 again)
//   any ──list.ticket | list.message | list.contact──▶ same state, list patched in place
//
// Live events never refetch: a ticket that now matches the list's status and filters
// is put in order by updatedAt (newest first), one that no longer matches leaves, and
// `count` follows. A search list only updates rows it already shows.
import { assign, fromPromise, setup } from 'xstate';
import type { AppMessageEvent, Contact, ID, Ticket, TicketEvent, TicketPage, TicketStatus } from '../api/types';
import { ticketStore as defaultStore, type TicketStore } from './ticketStore';

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
  | { type: 'list.contact'; contact: Contact; action: 'update' | 'delete' };

// belongs says whether the list, as filtered, shows the ticket.
export function belongs(t: Ticket, ctx: Pick<TicketListContext, 'spec' | 'filters' | 'userId'>): boolean {
  const { spec, filters } = ctx;
  if (spec.withUnreadMessages) {
    if (!(t.unreadMessages > 0) || t.status === 'closed') return false;
  }
  if (spec.status && t.status !== spec.status) return false;
  if (spec.status === 'open' && !filters.showAll && t.userId !== ctx.userId) return false;
  if (filters.queueIds.length && t.queueId != null && !filters.queueIds.includes(t.queueId)) return false;
  if (filters.tags.length && !(t.tags ?? []).some((tag) => filters.tags.includes(tag.id))) return false;
  if (filters.users.length && (t.userId == null || !filters.users.includes(t.userId))) return false;
  return true;
}

function newer(a: Ticket | undefined, b: Ticket): boolean {
  return !!a && a.updatedAt > b.updatedAt;
}

// place returns ids with t at its updatedAt position (or without it when it left).
function place(ctx: TicketListContext, t: Ticket): { ids: ID[]; count: number } {
  const had = ctx.ids.includes(t.id);
  const keep = ctx.spec.search ? had : belongs(t, ctx);
  let ids = had ? ctx.ids.filter((id) => id !== t.id) : ctx.ids;
  let count = ctx.count;
  if (keep) {
    let i = 0;
    while (i < ids.length && newer(ctx.store.get(ids[i]), t)) i++;
    // A ticket older than every loaded row, with more pages to come, arrives with them.
    if (i === ids.length && ctx.hasMore && !had) return { ids: ctx.ids, count: count + 1 };
    ids = [...ids.slice(0, i), t.id, ...ids.slice(i)];
    if (!had) count++;
  } else if (had) {
    count = Math.max(0, count - 1);
  } else {
    ids = ctx.ids;
  }
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
    onTicket: assign(({ context, event }) => {
      if (event.type !== 'list.ticket') return {};
      const e = event.event;
      const id = e.ticket?.id ?? e.ticketId;
      if (id == null) return {};
      if (e.action === 'delete') {
        if (!context.ids.includes(id)) return {};
        return { ids: context.ids.filter((x) => x !== id), count: Math.max(0, context.count - 1) };
      }
      if (e.action === 'updateUnread') {
        const t = context.store.patch(id, { unreadMessages: 0 });
        return t ? place(context, t) : {};
      }
      if (!e.ticket) return {};
      return place(context, context.store.upsert(e.ticket));
    }),
    onMessage: assign(({ context, event }) => {
      if (event.type !== 'list.message') return {};
      const { ticket, message } = event.event;
      let t: Ticket | undefined;
      if (ticket) t = context.store.upsert(ticket);
      else if (event.event.action === 'create')
        t = context.store.patch(message.ticketId, { lastMessage: message.body, updatedAt: message.createdAt });
      return t ? place(context, t) : {};
    }),
    onContact: ({ context, event }) => {
      if (event.type === 'list.contact' && event.action === 'update') context.store.patchContact(event.contact);
    },
  },
}).createMachine({
  id: 'ticketList',
  context: ({ input }) => ({
    spec: input.spec,
    filters: input.filters ?? emptyFilters,
    userId: input.userId,
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
      { actions: 'onTicket' },
    ],
    'list.message': { actions: 'onMessage' },
    'list.contact': { actions: 'onContact' },
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
