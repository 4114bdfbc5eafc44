import { createActor, fromPromise } from 'xstate';
import { authBackoffMs, connectionActor, socketMachine } from './socket.machine';
import type { RealtimeHandlers, RealtimeTransport, ServerEventName, SocketAuth } from '../api/socket';

// A fake transport: records every handshake's auth and every emitted frame, and lets the
// test play the server.
function fakeTransport() {
  const state = {
    handshakes: [] as SocketAuth[],
    emitted: [] as [string, unknown][],
    acks: [] as ((answer: unknown) => void)[],
    closed: 0,
    opened: 0,
    h: null as RealtimeHandlers | null,
    getAuth: null as (() => SocketAuth) | null,
  };
  const transport: RealtimeTransport = (getAuth, h) => {
    state.h = h;
    state.getAuth = getAuth;
    state.opened++;
    return {
      emit: (event, arg, onAck) => {
        state.emitted.push([event, arg]);
        if (onAck) state.acks.push(onAck);
      },
      reconnect: () => {},
      close: () => void state.closed++,
    };
  };
  const server = {
    connect() {
      state.handshakes.push(state.getAuth!());
      state.h!.onConnect();
    },
    drop(reason = 'transport close') {
      state.h!.onDisconnect(reason, true);
    },
    send(name: ServerEventName, payload: unknown) {
      state.h!.onEvent(name, payload);
    },
    refuse() {
      state.h!.onAuthError('ERR_INVALID_TOKEN');
    },
  };
  return { state, transport, server };
}

function build(refresh: () => Promise<unknown> = async () => ({})) {
  const fake = fakeTransport();
  let token = 'tok-1';
  const machine = socketMachine.provide({
    actors: {
      connection: connectionActor(fake.transport, () => token),
      refreshToken: fromPromise(async () => {
        await refresh();
        token = 'tok-2';
      }),
    },
  });
  const actor = createActor(machine);
  const realtime: [string, unknown][] = [];
  const resyncs: string[] = [];
  actor.on('realtime', (e) => realtime.push([e.name, e.payload]));
  actor.on('resync', (e) => resyncs.push(e.reason));
  actor.start();
  return { actor, ...fake, realtime, resyncs };
}

describe('socket machine', () => {
  it('connects, authenticates with token and lastSeq 0, and forwards events', () => {
    const { actor, server, state, realtime } = build();
    actor.send({ type: 'socket.start' });
    expect(actor.getSnapshot().matches({ active: 'connecting' })).toBe(true);
    server.connect();
    expect(actor.getSnapshot().matches({ active: 'connected' })).toBe(true);
    expect(state.handshakes).toEqual([{ token: 'tok-1', lastSeq: 0, rooms: [] }]);
    server.send('ticket', { action: 'update', ticket: { id: 1 }, seq: 1 });
    expect(realtime).toEqual([['ticket', { action: 'update', ticket: { id: 1 }, seq: 1 }]]);
    expect(actor.getSnapshot().context.lastSeq).toBe(1);
  });

  it('joins rooms when connected and re-joins them after a reconnect', () => {
    const { actor, server, state } = build();
    actor.send({ type: 'socket.join', room: { kind: 'tickets', status: 'open' } });
    actor.send({ type: 'socket.start' });
    server.connect();
    expect(state.emitted).toEqual([['joinTickets', 'open']]);
    actor.send({ type: 'socket.join', room: { kind: 'chatBox', ticketId: 42 } });
    actor.send({ type: 'socket.join', room: { kind: 'notification' } });
    expect(state.emitted.slice(1)).toEqual([
      ['joinChatBox', '42'],
      ['joinNotification', undefined],
    ]);
    actor.send({ type: 'socket.leave', room: { kind: 'chatBox', ticketId: 42 } });
    expect(state.emitted.at(-1)).toEqual(['leaveChatBox', '42']);

    state.emitted.length = 0;
    server.drop();
    expect(actor.getSnapshot().matches({ active: 'reconnecting' })).toBe(true);
    expect(actor.getSnapshot().hasTag('offline')).toBe(true);
    server.connect();
    // The handshake declares the rooms in force (chat box 42 was left), so the server
    // replays what was missed in all of them as one ordered stream; the joins follow.
    expect(state.handshakes.at(-1)?.rooms).toEqual([['joinTickets', 'open'], ['joinNotification']]);
    expect(state.emitted).toEqual([
      ['joinTickets', 'open'],
      ['joinNotification', undefined],
    ]);
  });

  it('reconnects with the last seq seen and drops replayed duplicates', () => {
    const { actor, server, state, realtime } = build();
    actor.send({ type: 'socket.start' });
    server.connect();
    server.send('appMessage', { action: 'create', message: { id: 1 }, seq: 5 });
    server.send('appMessage', { action: 'create', message: { id: 2 }, seq: 6 });
    server.drop();
    server.connect();
    expect(state.handshakes.at(-1)).toEqual({ token: 'tok-1', lastSeq: 6, rooms: [] });
    // The server replays from its buffer, overlapping what we already have.
    server.send('appMessage', { action: 'create', message: { id: 2 }, seq: 6 });
    server.send('appMessage', { action: 'create', message: { id: 3 }, seq: 7 });
    expect(realtime.map(([, p]) => (p as { seq: number }).seq)).toEqual([5, 6, 7]);
    expect(actor.getSnapshot().context.lastSeq).toBe(7);
  });

  it('takes a join ack’s seq as the room’s high-water mark', () => {
    const { actor, server, state, realtime } = build();
    actor.send({ type: 'socket.start' });
    server.connect();
    actor.send({ type: 'socket.join', room: { kind: 'chatBox', ticketId: 3 } });
    state.acks[0]({ ok: true, seq: 50 });
    expect(actor.getSnapshot().context.lastSeq).toBe(50);
    server.send('appMessage', { action: 'create', message: { id: 1 }, seq: 49 });
    server.send('appMessage', { action: 'create', message: { id: 2 }, seq: 51 });
    expect(realtime.map(([, p]) => (p as { seq: number }).seq)).toEqual([51]);
    server.drop();
    server.connect();
    expect(state.handshakes.at(-1)?.lastSeq).toBe(51);
  });

  it('announces resync so lists refetch', () => {
    const { actor, server, resyncs, realtime } = build();
    actor.send({ type: 'socket.start' });
    server.connect();
    server.send('resync', { reason: 'gap', seq: 100 });
    expect(resyncs).toEqual(['gap']);
    expect(realtime).toEqual([]);
    expect(actor.getSnapshot().context.lastSeq).toBe(100);
  });

  it('refreshes the token when the handshake is refused, then connects again', async () => {
    const { actor, server, state } = build();
    actor.send({ type: 'socket.start' });
    server.refuse();
    expect(actor.getSnapshot().matches('refreshing')).toBe(true);
    expect(state.closed).toBe(1);
    await vi.waitFor(() => expect(actor.getSnapshot().matches({ active: 'connecting' })).toBe(true));
    server.connect();
    expect(state.handshakes.at(-1)?.token).toBe('tok-2');
  });

  it('backs off when the server refuses again and again, and forgets after a connect', async () => {
    vi.useFakeTimers();
    try {
      const { actor, server, state } = build();
      actor.send({ type: 'socket.start' });
      server.connect();
      const opened = () => state.opened;
      // First refusal: refresh, then retry at once.
      server.refuse();
      await vi.advanceTimersByTimeAsync(0);
      expect(actor.getSnapshot().matches({ active: 'connecting' })).toBe(true);
      // Second and third in a row: 1 s, then 2 s before the next handshake.
      for (const wait of [1000, 2000]) {
        const before = opened();
        server.refuse();
        await vi.advanceTimersByTimeAsync(wait - 1);
        expect(actor.getSnapshot().matches('waiting')).toBe(true);
        expect(opened()).toBe(before);
        await vi.advanceTimersByTimeAsync(1);
        expect(actor.getSnapshot().matches({ active: 'connecting' })).toBe(true);
      }
      server.connect();
      expect(actor.getSnapshot().context.authFailures).toBe(0);
      server.refuse();
      await vi.advanceTimersByTimeAsync(0);
      expect(actor.getSnapshot().matches({ active: 'connecting' })).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('caps the back-off at 30 s', () => {
    expect([1, 2, 3, 4, 6, 7, 20].map(authBackoffMs)).toEqual([0, 1000, 2000, 4000, 16000, 30000, 30000]);
  });

  it('stops when the refresh fails', async () => {
    const { actor, server } = build(async () => Promise.reject(new Error('401')));
    actor.send({ type: 'socket.start' });
    server.refuse();
    await vi.waitFor(() => expect(actor.getSnapshot().matches('idle')).toBe(true));
  });

  it('socket.stop closes the connection', () => {
    const { actor, server, state } = build();
    actor.send({ type: 'socket.start' });
    server.connect();
    actor.send({ type: 'socket.stop' });
    expect(actor.getSnapshot().matches('idle')).toBe(true);
    expect(state.closed).toBe(1);
  });
});
