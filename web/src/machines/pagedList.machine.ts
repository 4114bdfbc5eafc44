// A searchable, paged list of records with ids (contacts today; users, quick answers
// later): loading → ready ⇄ loadingMore, list.search reloads from page 1, and
// list.upsert / list.remove apply socket events in place.
import { assign, fromPromise, setup } from 'xstate';

export interface Identified {
  id: number;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

export interface PagedListContext<T extends Identified> {
  items: T[];
  searchParam: string;
  pageNumber: number;
  hasMore: boolean;
  error: unknown;
}

export type PagedListEvent<T extends Identified> =
  | { type: 'list.search'; searchParam: string }
  | { type: 'list.nextPage' }
  | { type: 'list.refresh' }
  | { type: 'list.upsert'; item: T }
  | { type: 'list.remove'; id: number };

export function createPagedListMachine<T extends Identified>() {
  return setup({
    types: {
      context: {} as PagedListContext<T>,
      events: {} as PagedListEvent<T>,
      input: {} as { searchParam?: string },
    },
    actors: {
      fetchPage: fromPromise<Page<T>, { searchParam: string; pageNumber: number }>(async () => {
        throw new Error('pagedList: provide actors.fetchPage');
      }),
    },
    guards: {
      hasMore: ({ context }) => context.hasMore,
    },
    actions: {
      setSearch: assign({
        searchParam: ({ context, event }) => (event.type === 'list.search' ? event.searchParam : context.searchParam),
      }),
      applyFirst: assign((_, { page }: { page: Page<T> }) => ({ items: page.items, hasMore: page.hasMore, pageNumber: 1, error: null })),
      applyNext: assign(({ context }, { page }: { page: Page<T> }) => {
        const seen = new Set(context.items.map((i) => i.id));
        return {
          items: [...context.items, ...page.items.filter((i) => !seen.has(i.id))],
          hasMore: page.hasMore,
          pageNumber: context.pageNumber + 1,
        };
      }),
      setError: assign({ error: (_, params: { error: unknown }) => params.error }),
      upsert: assign({
        items: ({ context, event }) => {
          if (event.type !== 'list.upsert') return context.items;
          const i = context.items.findIndex((x) => x.id === event.item.id);
          if (i < 0) return [event.item, ...context.items];
          const next = context.items.slice();
          next[i] = { ...next[i], ...event.item };
          return next;
        },
      }),
      remove: assign({
        items: ({ context, event }) => (event.type === 'list.remove' ? context.items.filter((x) => x.id !== event.id) : context.items),
      }),
    },
  }).createMachine({
    id: 'pagedList',
    context: ({ input }) => ({ items: [], searchParam: input.searchParam ?? '', pageNumber: 1, hasMore: false, error: null }),
    initial: 'loading',
    on: {
      'list.search': { target: '.loading', actions: 'setSearch' },
      'list.refresh': '.loading',
      'list.upsert': { actions: 'upsert' },
      'list.remove': { actions: 'remove' },
    },
    states: {
      loading: {
        tags: ['loading'],
        invoke: {
          src: 'fetchPage',
          input: ({ context }) => ({ searchParam: context.searchParam, pageNumber: 1 }),
          onDone: { target: 'ready', actions: { type: 'applyFirst', params: ({ event }) => ({ page: event.output }) } },
          onError: { target: 'ready', actions: { type: 'setError', params: ({ event }) => ({ error: event.error }) } },
        },
      },
      ready: {
        on: { 'list.nextPage': { guard: 'hasMore', target: 'loadingMore' } },
      },
      loadingMore: {
        tags: ['loadingMore'],
        invoke: {
          src: 'fetchPage',
          input: ({ context }) => ({ searchParam: context.searchParam, pageNumber: context.pageNumber + 1 }),
          onDone: { target: 'ready', actions: { type: 'applyNext', params: ({ event }) => ({ page: event.output }) } },
          onError: { target: 'ready', actions: { type: 'setError', params: ({ event }) => ({ error: event.error }) } },
        },
      },
    },
  });
}
