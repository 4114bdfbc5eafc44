import { createActor, fromPromise } from 'xstate';
import { chatMachine, mergeMessages } from './chat.machine';
import { ApiError } from '../api/errors';
import type { Message, MessagePage, Ticket } from '../api/types';

function msg(id: number, minute: number, over: Partial<Message> = {}): Message {
  return { id, ticketId: 7, body: `m${id}`, fromMe: false, ack: 0, createdAt: `2026-11-22T10:${String(minute).padStart(2, '0')}:00Z`, ...over };
}

const ticket: Ticket = { id: 7, status: 'open', contactId: 1, unreadMessages: 0, updatedAt: '2026-11-22T10:00:00Z' };

function build(pages: MessagePage[], loadError?: unknown) {
  const cursors: (string | null)[] = [];
  const machine = chatMachine.provide({
    actors: {
      loadInitial: fromPromise(async () => {
        if (loadError) throw loadError;
        return { ticket, page: pages[0] };
      }),
      loadPage: fromPromise(async ({ input }) => {
        cursors.push(input.cursor);
        return pages[input.pageNumber - 1];
      }),
    },
  });
  const actor = createActor(machine, { input: { ticketId: 7 } });
  const emitted: string[] = [];
  actor.on('*', (e) => emitted.push(e.type));
  actor.start();
  const idle = () => vi.waitFor(() => expect(actor.getSnapshot().matches({ ready: 'idle' })).toBe(true));
  const ids = () => actor.getSnapshot().context.messages.map((m) => m.id);
  return { actor, emitted, idle, ids, cursors };
}

describe('chat machine', () => {
  it('loads the ticket and newest page, then older pages in front', async () => {
    const { actor, idle, ids, cursors } = build([
      { messages: [msg(3, 3), msg(4, 4)], hasMore: true, nextCursor: 'older-1' },
      { messages: [msg(1, 1), msg(2, 2)], hasMore: false },
    ]);
    await idle();
    expect(actor.getSnapshot().context.ticket?.id).toBe(7);
    expect(ids()).toEqual([3, 4]);
    actor.send({ type: 'chat.loadOlder' });
    await idle();
    expect(ids()).toEqual([1, 2, 3, 4]);
    expect(cursors).toEqual(['older-1']);
    actor.send({ type: 'chat.loadOlder' });
    expect(actor.getSnapshot().matches({ ready: 'idle' })).toBe(true);
  });

  it('appends created messages of this ticket and replaces updated ones', async () => {
    const { actor, idle, ids } = build([{ messages: [msg(1, 1)], hasMore: false }]);
    await idle();
    actor.send({ type: 'chat.message', event: { action: 'create', message: msg(2, 5) } });
    actor.send({ type: 'chat.message', event: { action: 'create', message: msg(99, 6, { ticketId: 8 }) } });
    expect(ids()).toEqual([1, 2]);
    // Updates are partial, as the server sends them.
    actor.send({ type: 'chat.message', event: { action: 'update', message: { id: 2, ticketId: 7, ack: 3 } as Message } });
    expect(actor.getSnapshot().context.messages[1]).toMatchObject({ id: 2, ack: 3, body: 'm2' });
    actor.send({ type: 'chat.message', event: { action: 'update', message: { id: 404, ticketId: 7, isDeleted: true } as Message } });
    expect(ids()).toEqual([1, 2]);
  });

  it('follows ticket updates and ends on delete', async () => {
    const { actor, idle, emitted } = build([{ messages: [], hasMore: false }]);
    await idle();
    actor.send({ type: 'chat.ticket', event: { action: 'update', ticket: { ...ticket, status: 'closed' } } });
    expect(actor.getSnapshot().context.ticket?.status).toBe('closed');
    actor.send({ type: 'chat.ticket', event: { action: 'delete', ticketId: 8 } });
    expect(actor.getSnapshot().status).toBe('active');
    actor.send({ type: 'chat.ticket', event: { action: 'delete', ticketId: 7 } });
    expect(actor.getSnapshot().status).toBe('done');
    expect(emitted).toContain('deleted');
  });

  it('stays on a moved delete: the ticket left a status room, it was not deleted', async () => {
    const { actor, idle, emitted } = build([{ messages: [], hasMore: false }]);
    await idle();
    actor.send({ type: 'chat.ticket', event: { action: 'delete', ticketId: 7, moved: true } });
    actor.send({ type: 'chat.ticket', event: { action: 'update', ticket: { ...ticket, status: 'closed' } } });
    expect(actor.getSnapshot().status).toBe('active');
    expect(actor.getSnapshot().context.ticket?.status).toBe('closed');
    expect(emitted).not.toContain('deleted');
  });

  it('emits notFound for a missing ticket', async () => {
    const { actor, emitted } = build([], new ApiError(404, 'ERR_NO_TICKET_FOUND'));
    await vi.waitFor(() => expect(actor.getSnapshot().matches('failed')).toBe(true));
    expect(emitted).toEqual(['notFound']);
  });
});

describe('mergeMessages', () => {
  it('dedupes by id and orders by time', () => {
    expect(mergeMessages([msg(2, 2)], [msg(1, 1), msg(2, 2, { body: 'edited' })]).map((m) => [m.id, m.body])).toEqual([
      [1, 'm1'],
      [2, 'edited'],
    ]);
  });
});
