import { createActor, fromPromise } from 'xstate';
import { ticketMachine, type TicketCommand, type TicketEmitted } from './ticket.machine';
import type { Ticket } from '../api/types';

const me = 10;

function ticket(over: Partial<Ticket> = {}): Ticket {
  return { id: 5, status: 'pending', contactId: 1, unreadMessages: 0, updatedAt: '2026-11-22T10:00:00Z', ...over };
}

// The fake server applies a command the way the spec says the real one does.
function build(t: Ticket, permissions: string[] = [], fail = false) {
  const commands: TicketCommand[] = [];
  const machine = ticketMachine.provide({
    actors: {
      command: fromPromise(async ({ input }) => {
        commands.push(input.command);
        if (fail) throw new Error('ERR_NO_PERMISSION');
        if (input.command.kind === 'delete') return undefined;
        return { ...t, ...input.command.patch } as Ticket;
      }),
    },
  });
  const actor = createActor(machine, { input: { ticket: t, userId: me, permissions } });
  const emitted: TicketEmitted[] = [];
  actor.on('*', (e) => emitted.push(e as TicketEmitted));
  actor.start();
  const settled = () => vi.waitFor(() => expect(actor.getSnapshot().hasTag('busy')).toBe(false));
  return { actor, commands, emitted, settled };
}

describe('ticket machine', () => {
  it.each([
    ['pending', 'pending'],
    ['open', 'open'],
    ['closed', 'closed'],
  ] as const)('starts in the state of a %s ticket', (status, state) => {
    const { actor } = build(ticket({ status }));
    expect(actor.getSnapshot().value).toBe(state);
  });

  it('accept: pending → open assigned to me, emits changed(openForMe)', async () => {
    const { actor, commands, emitted, settled } = build(ticket());
    actor.send({ type: 'ticket.accept' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await settled();
    expect(commands).toEqual([{ kind: 'update', patch: { status: 'open', userId: me } }]);
    expect(actor.getSnapshot().value).toBe('open');
    expect(emitted).toContainEqual(expect.objectContaining({ type: 'changed', openForMe: true }));
  });

  it('resolve: open → closed (resolved tag), not open for me', async () => {
    const { actor, emitted, settled } = build(ticket({ status: 'open', userId: me }));
    actor.send({ type: 'ticket.resolve' });
    await settled();
    expect(actor.getSnapshot().value).toBe('closed');
    expect(actor.getSnapshot().hasTag('resolved')).toBe(true);
    expect(emitted).toContainEqual(expect.objectContaining({ type: 'changed', openForMe: false }));
  });

  it('return: open → pending with no user', async () => {
    const { actor, commands, settled } = build(ticket({ status: 'open', userId: me }));
    actor.send({ type: 'ticket.return' });
    await settled();
    expect(commands[0]).toEqual({ kind: 'update', patch: { status: 'pending', userId: null } });
    expect(actor.getSnapshot().value).toBe('pending');
  });

  it('reopen: closed → open assigned to me', async () => {
    const { actor, commands, settled } = build(ticket({ status: 'closed', userId: 3 }));
    actor.send({ type: 'ticket.reopen' });
    await settled();
    expect(commands[0]).toEqual({ kind: 'update', patch: { status: 'open', userId: me } });
    expect(actor.getSnapshot().context.ticket.userId).toBe(me);
  });

  it('ignores commands that do not apply to the status', () => {
    const { actor, commands } = build(ticket({ status: 'pending' }));
    actor.send({ type: 'ticket.resolve' });
    actor.send({ type: 'ticket.reopen' });
    actor.send({ type: 'ticket.return' });
    expect(commands).toEqual([]);
    expect(actor.getSnapshot().value).toBe('pending');
  });

  it('transfer to a user: open for that user', async () => {
    const { actor, commands, emitted, settled } = build(ticket({ status: 'open', userId: me }));
    actor.send({ type: 'ticket.transfer', userId: 22, queueId: 3 });
    await settled();
    expect(commands[0]).toEqual({ kind: 'update', patch: { status: 'open', userId: 22, queueId: 3 } });
    expect(actor.getSnapshot().value).toBe('open');
    expect(emitted).toContainEqual(expect.objectContaining({ type: 'changed', openForMe: false }));
  });

  it('transfer to a queue only: pending with no user', async () => {
    const { actor, commands, settled } = build(ticket({ status: 'open', userId: me }));
    actor.send({ type: 'ticket.transfer', queueId: 4 });
    await settled();
    expect(commands[0]).toEqual({ kind: 'update', patch: { status: 'pending', userId: null, queueId: 4 } });
    expect(actor.getSnapshot().value).toBe('pending');
  });

  it('transfer with no target is refused', () => {
    const { actor, commands } = build(ticket({ status: 'open', userId: me }));
    actor.send({ type: 'ticket.transfer' });
    expect(commands).toEqual([]);
  });

  it('transfer to a connection needs ticket-options:transferWhatsapp', async () => {
    const without = build(ticket({ status: 'open', userId: me }));
    without.actor.send({ type: 'ticket.transfer', queueId: 1, whatsappId: 9 });
    expect(without.commands).toEqual([]);

    const withPerm = build(ticket({ status: 'open', userId: me }), ['ticket-options:transferWhatsapp']);
    withPerm.actor.send({ type: 'ticket.transfer', queueId: 1, whatsappId: 9 });
    await withPerm.settled();
    expect(withPerm.commands[0]).toEqual({
      kind: 'update',
      patch: { status: 'pending', userId: null, queueId: 1, whatsappId: 9 },
    });
  });

  it('delete needs ticket-options:deleteTicket', async () => {
    const denied = build(ticket({ status: 'closed' }));
    denied.actor.send({ type: 'ticket.delete' });
    expect(denied.commands).toEqual([]);
    expect(denied.actor.getSnapshot().value).toBe('closed');

    const allowed = build(ticket({ status: 'closed' }), ['ticket-options:deleteTicket']);
    allowed.actor.send({ type: 'ticket.delete' });
    await vi.waitFor(() => expect(allowed.actor.getSnapshot().status).toBe('done'));
    expect(allowed.commands).toEqual([{ kind: 'delete' }]);
    expect(allowed.emitted).toContainEqual({ type: 'deleted', ticketId: 5 });
  });

  it('a refused command leaves the ticket where it was and emits failed', async () => {
    const { actor, emitted, settled } = build(ticket(), [], true);
    actor.send({ type: 'ticket.accept' });
    await settled();
    expect(actor.getSnapshot().value).toBe('pending');
    expect(emitted.map((e) => e.type)).toEqual(['failed']);
    expect(actor.getSnapshot().context.error).toBeInstanceOf(Error);
  });

  it('follows a ticket pushed by the socket', () => {
    const { actor } = build(ticket());
    actor.send({ type: 'ticket.synced', ticket: ticket({ status: 'closed' }) });
    expect(actor.getSnapshot().value).toBe('closed');
  });

  // The socket's echo of the change (or the shared store the command updates) can come
  // back before the command's answer: it must not cancel the command, whose answer
  // decides where the UI goes next.
  it('a ticket pushed while a command runs does not cancel it', async () => {
    let answer!: (t: Ticket | undefined) => void;
    const machine = ticketMachine.provide({
      actors: { command: fromPromise(() => new Promise<Ticket | undefined>((ok) => (answer = ok))) },
    });
    const actor = createActor(machine, { input: { ticket: ticket({ status: 'open', userId: me }), userId: me, permissions: [] } });
    const emitted: TicketEmitted[] = [];
    actor.on('*', (e) => emitted.push(e as TicketEmitted));
    actor.start();
    actor.send({ type: 'ticket.transfer', queueId: 3 });
    const moved = ticket({ status: 'pending', userId: null, queueId: 3 });
    actor.send({ type: 'ticket.synced', ticket: moved });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    expect(actor.getSnapshot().context.ticket).toEqual(moved);
    answer(moved);
    await vi.waitFor(() => expect(actor.getSnapshot().hasTag('busy')).toBe(false));
    expect(actor.getSnapshot().value).toBe('pending');
    expect(emitted).toEqual([{ type: 'changed', ticket: moved, openForMe: false }]);
  });
});
