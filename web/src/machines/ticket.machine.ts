// Ticket lifecycle (spec section 4, Ticket status):
//
//   pending ──ticket.accept──▶ open (assigned to me)
//   open ──ticket.resolve──▶ closed          open ──ticket.return──▶ pending (no user)
//   closed ──ticket.reopen──▶ open (assigned to me)
//   pending|open ──ticket.transfer{userId}──▶ open for that user
//   pending|open ──ticket.transfer{queueId only}──▶ pending, no user
//   any ──ticket.delete (permission ticket-options:deleteTicket)──▶ deleted
//
// Every command is sent to the server (`command` actor: PUT/DELETE /tickets/{id}); the
// machine settles on the status of the ticket the server answers, so a refusal leaves
// it where it was. ticket.synced applies a ticket pushed by the socket (while a command
// runs it is applied without leaving busy; the command's answer then settles the state).
// Emits `changed` after a command (the UI navigates: to /tickets/{id} when it is now
// open for me, else to /tickets), `deleted`, and `failed` with the error.
import { assign, emit, fromPromise, setup } from 'xstate';
import type { ID, Ticket, TicketStatus } from '../api/types';

export const ticketActions = {
  transferWhatsapp: 'ticket-options:transferWhatsapp',
  deleteTicket: 'ticket-options:deleteTicket',
} as const;

export type TicketCommand =
  | { kind: 'update'; patch: { status?: TicketStatus; userId?: ID | null; queueId?: ID | null; whatsappId?: ID | null } }
  | { kind: 'delete' };

export interface TicketContext {
  ticket: Ticket;
  userId: ID;
  permissions: readonly string[];
  command: TicketCommand | null;
  error: unknown;
}

export interface TicketInput {
  ticket: Ticket;
  userId: ID;
  permissions: readonly string[];
}

export interface TransferTarget {
  userId?: ID | null;
  queueId?: ID | null;
  whatsappId?: ID | null;
}

export type TicketEvent =
  | { type: 'ticket.accept' }
  | { type: 'ticket.resolve' }
  | { type: 'ticket.return' }
  | { type: 'ticket.reopen' }
  | ({ type: 'ticket.transfer' } & TransferTarget)
  | { type: 'ticket.delete' }
  | { type: 'ticket.synced'; ticket: Ticket };

export type TicketEmitted =
  | { type: 'changed'; ticket: Ticket; openForMe: boolean }
  | { type: 'deleted'; ticketId: ID }
  | { type: 'failed'; error: unknown };

export const ticketMachine = setup({
  types: {
    context: {} as TicketContext,
    events: {} as TicketEvent,
    input: {} as TicketInput,
    emitted: {} as TicketEmitted,
  },
  actors: {
    command: fromPromise<Ticket | undefined, { ticketId: ID; command: TicketCommand }>(async () => {
      throw new Error('ticket: provide actors.command');
    }),
  },
  guards: {
    isPending: ({ context }) => context.ticket.status === 'pending',
    isOpen: ({ context }) => context.ticket.status === 'open',
    isClosed: ({ context }) => context.ticket.status === 'closed',
    wasDelete: ({ context }) => context.command?.kind === 'delete',
    canDelete: ({ context }) => context.permissions.includes(ticketActions.deleteTicket),
    // A transfer names a user or a queue; naming a connection needs its permission.
    validTransfer: ({ context, event }) => {
      if (event.type !== 'ticket.transfer') return false;
      const hasTarget = event.userId != null || event.queueId != null || event.whatsappId != null;
      const connOk =
        event.whatsappId == null || context.permissions.includes(ticketActions.transferWhatsapp);
      return hasTarget && connOk && context.ticket.id > 0;
    },
  },
  actions: {
    setCommand: assign({ command: (_, params: { command: TicketCommand }) => params.command }),
    applyTicket: assign({
      ticket: ({ context }, params: { ticket: Ticket | undefined; fallback?: Partial<Ticket> }) =>
        params.ticket ?? { ...context.ticket, ...params.fallback },
    }),
    // A user makes it open for them; a queue alone makes it pending with no user.
    setTransfer: assign({
      command: ({ event }): TicketCommand | null => {
        if (event.type !== 'ticket.transfer') return null;
        const patch: Extract<TicketCommand, { kind: 'update' }>['patch'] =
          event.userId != null
            ? { status: 'open', userId: event.userId }
            : { status: 'pending', userId: null };
        if (event.queueId != null) patch.queueId = event.queueId;
        if (event.whatsappId != null) patch.whatsappId = event.whatsappId;
        return { kind: 'update', patch };
      },
    }),
    setDelete: assign({ command: { kind: 'delete' } as TicketCommand }),
    setError: assign({ error: (_, params: { error: unknown }) => params.error }),
    clearError: assign({ error: null }),
  },
}).createMachine({
  id: 'ticket',
  context: ({ input }) => ({
    ticket: input.ticket,
    userId: input.userId,
    permissions: input.permissions,
    command: null,
    error: null,
  }),
  initial: 'route',
  on: {
    'ticket.synced': {
      target: '.route',
      actions: { type: 'applyTicket', params: ({ event }) => ({ ticket: event.ticket }) },
    },
  },
  states: {
    // Settles on the state that matches the ticket's status.
    route: {
      always: [
        { guard: 'isPending', target: 'pending' },
        { guard: 'isOpen', target: 'open' },
        { guard: 'isClosed', target: 'closed' },
        { target: 'pending' },
      ],
    },
    pending: {
      on: {
        'ticket.accept': {
          target: 'busy',
          actions: {
            type: 'setCommand',
            params: ({ context }) => ({ command: { kind: 'update', patch: { status: 'open', userId: context.userId } } }),
          },
        },
        'ticket.transfer': { guard: 'validTransfer', target: 'busy', actions: 'setTransfer' },
        'ticket.delete': { guard: 'canDelete', target: 'busy', actions: 'setDelete' },
      },
    },
    open: {
      on: {
        'ticket.resolve': {
          target: 'busy',
          actions: {
            type: 'setCommand',
            params: ({ context }) => ({ command: { kind: 'update', patch: { status: 'closed', userId: context.userId } } }),
          },
        },
        'ticket.return': {
          target: 'busy',
          actions: { type: 'setCommand', params: { command: { kind: 'update', patch: { status: 'pending', userId: null } } } },
        },
        'ticket.transfer': { guard: 'validTransfer', target: 'busy', actions: 'setTransfer' },
        'ticket.delete': { guard: 'canDelete', target: 'busy', actions: 'setDelete' },
      },
    },
    closed: {
      tags: ['resolved'],
      on: {
        'ticket.reopen': {
          target: 'busy',
          actions: {
            type: 'setCommand',
            params: ({ context }) => ({ command: { kind: 'update', patch: { status: 'open', userId: context.userId } } }),
          },
        },
        'ticket.delete': { guard: 'canDelete', target: 'busy', actions: 'setDelete' },
      },
    },
    busy: {
      tags: ['busy'],
      entry: 'clearError',
      // Stay busy on a pushed ticket (often the echo of this very command): leaving would
      // cancel the command, and with it the `changed` the UI navigates on.
      on: {
        'ticket.synced': { actions: { type: 'applyTicket', params: ({ event }) => ({ ticket: event.ticket }) } },
      },
      invoke: {
        src: 'command',
        input: ({ context }) => ({ ticketId: context.ticket.id, command: context.command! }),
        onDone: [
          {
            guard: 'wasDelete',
            target: 'deleted',
          },
          {
            target: 'route',
            actions: [
              {
                type: 'applyTicket',
                params: ({ context, event }) => ({
                  ticket: event.output,
                  fallback: context.command?.kind === 'update' ? (context.command.patch as Partial<Ticket>) : {},
                }),
              },
              emit(({ context }) => ({
                type: 'changed' as const,
                ticket: context.ticket,
                openForMe: context.ticket.status === 'open' && context.ticket.userId === context.userId,
              })),
            ],
          },
        ],
        onError: {
          target: 'route',
          actions: [
            { type: 'setError', params: ({ event }) => ({ error: event.error }) },
            emit(({ event }) => ({ type: 'failed' as const, error: event.error })),
          ],
        },
      },
    },
    deleted: {
      type: 'final',
      entry: emit(({ context }) => ({ type: 'deleted' as const, ticketId: context.ticket.id })),
    },
  },
});
