// The ticket lifecycle machine wired to the api, and a one-shot runner for list rows
// (a row does not keep a machine alive: it starts one when a button is pressed).
import { createActor, fromPromise } from 'xstate';
import { ticketMachine, type TicketEvent, type TicketEmitted } from '../../machines/ticket.machine';
import { ticketsApi } from '../../api/endpoints';
import { ticketStore } from '../../machines/ticketStore';
import type { ID, Ticket } from '../../api/types';

export const liveTicketMachine = ticketMachine.provide({
  actors: {
    command: fromPromise(async ({ input }) => {
      if (input.command.kind === 'delete') {
        await ticketsApi.remove(input.ticketId);
        return undefined;
      }
      const t = await ticketsApi.update(input.ticketId, input.command.patch);
      // The server answers the ticket; keep the shared store current before the socket echo.
      if (t && typeof t === 'object' && 'id' in t) ticketStore.upsert(t);
      return t;
    }),
  },
});

export interface CommandHandlers {
  onChanged?: (e: Extract<TicketEmitted, { type: 'changed' }>) => void;
  onDeleted?: (ticketId: ID) => void;
  onFailed?: (error: unknown) => void;
}

export function runTicketCommand(
  ticket: Ticket,
  ctx: { userId: ID; permissions: readonly string[] },
  event: Exclude<TicketEvent, { type: 'ticket.synced' }>,
  h: CommandHandlers,
): void {
  const actor = createActor(liveTicketMachine, { input: { ticket, userId: ctx.userId, permissions: ctx.permissions } });
  const stop = () => queueMicrotask(() => actor.stop());
  actor.on('changed', (e) => {
    h.onChanged?.(e);
    stop();
  });
  actor.on('deleted', (e) => {
    h.onDeleted?.(e.ticketId);
    stop();
  });
  actor.on('failed', (e) => {
    h.onFailed?.(e.error);
    stop();
  });
  actor.start();
  actor.send(event);
  // A refused transition (guard) leaves the machine idle: nothing will be emitted.
  if (!actor.getSnapshot().hasTag('busy')) stop();
}
