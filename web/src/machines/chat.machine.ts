// One open conversation: the ticket and its messages (spec section 2, Chat screen).
//
//   loading (ticket + newest page) ──▶ ready.idle ──chat.loadOlder (hasMore)──▶ ready.loadingOlder
//   loading ──error──▶ failed (emits notFound for ERR_NO_TICKET_FOUND / 404)
//   any ──chat.ticket{delete}──▶ deleted (emits deleted)
//
// Messages are kept oldest first; socket events for this ticket append or replace in
// place, older pages are merged in front (the list keeps the scroll position).
import { assign, emit, fromPromise, setup } from 'xstate';
import type { AppMessageEvent, ID, Message, MessagePage, Ticket, TicketEvent } from '../api/types';
import { isApiError } from '../api/errors';

export interface ChatContext {
  ticketId: ID;
  ticket: Ticket | null;
  messages: Message[];
  pageNumber: number;
  cursor: string | null;
  hasMore: boolean;
  error: unknown;
}

export type ChatEvent =
  | { type: 'chat.loadOlder' }
  | { type: 'chat.reload' }
  | { type: 'chat.message'; event: AppMessageEvent }
  | { type: 'chat.ticket'; event: TicketEvent }
  | { type: 'chat.ticketChanged'; ticket: Ticket };

export type ChatEmitted = { type: 'deleted'; ticketId: ID } | { type: 'notFound'; ticketId: ID } | { type: 'failed'; error: unknown };

export interface InitialLoad {
  ticket: Ticket;
  page: MessagePage;
}

function byTime(a: Message, b: Message): number {
  if (a.createdAt === b.createdAt) return a.id - b.id;
  return a.createdAt < b.createdAt ? -1 : 1;
}

export function mergeMessages(current: Message[], incoming: Message[]): Message[] {
  if (incoming.length === 0) return current;
  const byId = new Map<ID, Message>();
  for (const m of current) byId.set(m.id, m);
  for (const m of incoming) byId.set(m.id, { ...byId.get(m.id), ...m });
  return [...byId.values()].sort(byTime);
}

export const chatMachine = setup({
  types: {
    context: {} as ChatContext,
    events: {} as ChatEvent,
    input: {} as { ticketId: ID },
    emitted: {} as ChatEmitted,
  },
  actors: {
    loadInitial: fromPromise<InitialLoad, { ticketId: ID }>(async () => {
      throw new Error('chat: provide actors.loadInitial');
    }),
    loadPage: fromPromise<MessagePage, { ticketId: ID; pageNumber: number; cursor: string | null }>(async () => {
      throw new Error('chat: provide actors.loadPage');
    }),
  },
  guards: {
    hasMore: ({ context }) => context.hasMore,
    isNotFound: ({ event }) => {
      const err = (event as { error?: unknown }).error;
      return isApiError(err) && (err.status === 404 || err.code === 'ERR_NO_TICKET_FOUND');
    },
    // A moved delete (the ticket left a status room) is no deletion: the chat stays.
    isDeleteOfMine: ({ context, event }) =>
      event.type === 'chat.ticket' &&
      event.event.action === 'delete' &&
      !event.event.moved &&
      (event.event.ticketId ?? event.event.ticket?.id) === context.ticketId,
  },
  actions: {
    applyInitial: assign((_, { load }: { load: InitialLoad }) => ({
      ticket: load.ticket,
      messages: mergeMessages([], load.page.messages),
      hasMore: load.page.hasMore,
      pageNumber: 1,
      cursor: load.page.nextCursor || null,
      error: null,
    })),
    applyOlder: assign(({ context }, { page }: { page: MessagePage }) => ({
      messages: mergeMessages(context.messages, page.messages),
      hasMore: page.hasMore,
      pageNumber: context.pageNumber + 1,
      cursor: page.nextCursor || null,
    })),
    setError: assign({ error: (_, params: { error: unknown }) => params.error }),
    onMessage: assign(({ context, event }) => {
      if (event.type !== 'chat.message') return {};
      const { message, ticket } = event.event;
      const out: Partial<ChatContext> = {};
      if (message.ticketId === context.ticketId) {
        // An update carries only what changed ({id, ticketId, ack} or {…, isDeleted}):
        // it applies to a message shown, never adds one.
        if (event.event.action === 'create') out.messages = mergeMessages(context.messages, [message]);
        else if (context.messages.some((m) => m.id === message.id))
          out.messages = context.messages.map((m) => (m.id === message.id ? { ...m, ...message } : m));
      }
      if (ticket && ticket.id === context.ticketId && context.ticket) out.ticket = { ...context.ticket, ...ticket };
      return out;
    }),
    onTicket: assign(({ context, event }) => {
      if (event.type === 'chat.ticketChanged' && event.ticket.id === context.ticketId) {
        return { ticket: { ...context.ticket, ...event.ticket } };
      }
      if (event.type !== 'chat.ticket') return {};
      const t = event.event.ticket;
      if (event.event.action === 'update' && t && t.id === context.ticketId) {
        return { ticket: { ...context.ticket, ...t, contact: t.contact ?? context.ticket?.contact } };
      }
      if (event.event.action === 'updateUnread' && event.event.ticketId === context.ticketId && context.ticket) {
        return { ticket: { ...context.ticket, unreadMessages: 0 } };
      }
      return {};
    }),
  },
}).createMachine({
  id: 'chat',
  context: ({ input }) => ({
    ticketId: input.ticketId,
    ticket: null,
    messages: [],
    pageNumber: 1,
    cursor: null,
    hasMore: false,
    error: null,
  }),
  initial: 'loading',
  on: {
    'chat.ticket': [
      { guard: 'isDeleteOfMine', target: '.deleted' },
      { actions: 'onTicket' },
    ],
    'chat.ticketChanged': { actions: 'onTicket' },
    'chat.message': { actions: 'onMessage' },
    'chat.reload': '.loading',
  },
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        src: 'loadInitial',
        input: ({ context }) => ({ ticketId: context.ticketId }),
        onDone: { target: 'ready', actions: { type: 'applyInitial', params: ({ event }) => ({ load: event.output }) } },
        onError: [
          {
            guard: 'isNotFound',
            target: 'failed',
            actions: emit(({ context }) => ({ type: 'notFound' as const, ticketId: context.ticketId })),
          },
          {
            target: 'failed',
            actions: [
              { type: 'setError', params: ({ event }) => ({ error: event.error }) },
              emit(({ event }) => ({ type: 'failed' as const, error: event.error })),
            ],
          },
        ],
      },
    },
    ready: {
      initial: 'idle',
      states: {
        idle: { on: { 'chat.loadOlder': { guard: 'hasMore', target: 'loadingOlder' } } },
        loadingOlder: {
          tags: ['loadingOlder'],
          invoke: {
            src: 'loadPage',
            input: ({ context }) => ({ ticketId: context.ticketId, pageNumber: context.pageNumber + 1, cursor: context.cursor }),
            onDone: { target: 'idle', actions: { type: 'applyOlder', params: ({ event }) => ({ page: event.output }) } },
            onError: { target: 'idle', actions: { type: 'setError', params: ({ event }) => ({ error: event.error }) } },
          },
        },
      },
    },
    failed: {},
    deleted: {
      type: 'final',
      entry: emit(({ context }) => ({ type: 'deleted' as const, ticketId: context.ticketId })),
    },
  },
});
