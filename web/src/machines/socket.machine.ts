// Socket connection (spec section 7, Realtime socket).
//
//   idle ──socket.start──▶ active.connecting ──connected──▶ active.connected
//   active.connected ──dropped──▶ active.reconnecting ──connected──▶ active.connected
//   active.* ──auth refused──▶ refreshing ──token ok──▶ waiting ──▶ active.connecting
//                                         └──fail──▶ idle
//   * ──socket.stop──▶ idle
//
// The server keeps a connected socket open after its access token expires, so a
// refusal happens only at a (re)connect with an old token: one refresh and one retry.
// Should the server refuse again and again (a session ended elsewhere but the refresh
// cookie still working, a clock gone wrong), waiting backs off — immediately after
// the first refusal, then 1 s, 2 s, 4 s… up to 30 s — so a tab never loops at speed.
//
// Every server event carries a `seq`. The machine remembers the highest one and the
// transport hands it to the server on each reconnect (`auth.lastSeq`), so the server
// replays what was missed; replayed events already seen (seq ≤ lastSeq) are dropped.
// `resync` means the server could not replay: consumers refetch their lists.
// Rooms joined are re-joined on every connect. Consumers listen with
// actor.on('realtime', …) and actor.on('resync', …).
import { assign, emit, enqueueActions, fromCallback, fromPromise, setup } from 'xstate';
import type { RealtimeTransport, ServerEventName } from '../api/socket';

export type Room =
  | { kind: 'chatBox'; ticketId: number }
  | { kind: 'tickets'; status: string }
  | { kind: 'notification' };

export function roomKey(r: Room): string {
  switch (r.kind) {
    case 'chatBox':
      return `chatBox:${r.ticketId}`;
    case 'tickets':
      return `tickets:${r.status}`;
    case 'notification':
      return 'notification';
  }
}

function joinFrame(r: Room, leave: boolean): [string, unknown] {
  const verb = leave ? 'leave' : 'join';
  switch (r.kind) {
    case 'chatBox':
      return [`${verb}ChatBox`, String(r.ticketId)];
    case 'tickets':
      return [`${verb}Tickets`, r.status];
    case 'notification':
      return [`${verb}Notification`, undefined];
  }
}

export interface SocketContext {
  lastSeq: number;
  rooms: Record<string, Room>;
  attempts: number;
  // Handshakes refused in a row since the last successful connect.
  authFailures: number;
}

// authBackoffMs is the wait before reconnecting after the n-th refusal in a row.
export function authBackoffMs(n: number): number {
  return n <= 1 ? 0 : Math.min(30_000, 1000 * 2 ** (n - 2));
}

type ConnEvent =
  | { type: 'conn.connected' }
  | { type: 'conn.dropped'; reason: string }
  | { type: 'conn.authFailed'; message: string }
  | { type: 'conn.event'; name: ServerEventName; payload: unknown }
  | { type: 'conn.ack'; event: string; answer: unknown };

export type SocketEvent =
  | { type: 'socket.start' }
  | { type: 'socket.stop' }
  | { type: 'socket.join'; room: Room }
  | { type: 'socket.leave'; room: Room }
  | ConnEvent;

export type SocketEmitted =
  | { type: 'realtime'; name: ServerEventName; payload: unknown }
  | { type: 'resync'; reason: string }
  | { type: 'status'; connected: boolean };

// Messages the machine sends to its connection child.
export type ConnCommand = { type: 'emit'; event: string; arg?: unknown } | { type: 'reconnect' };

export interface ConnectionInput {
  lastSeq: number;
}

// connectionActor adapts a transport to the machine: it sends conn.* events back and
// takes emit/reconnect commands. It keeps its own copy of the highest seq so a
// reconnect started by socket.io itself still sends the right lastSeq.
export function connectionActor(transport: RealtimeTransport, getToken: () => string | null) {
  return fromCallback<ConnCommand, ConnectionInput, ConnEvent>(({ input, sendBack, receive }) => {
    let lastSeq = input.lastSeq;
    // The joins in force, by room: sent with every (re)connect so the server replays
    // the missed events of all of them in one ordered stream (a later join's older
    // events would otherwise fall under the seq rule).
    const joins = new Map<string, unknown[]>();
    const conn = transport(() => ({ token: getToken(), lastSeq, rooms: [...joins.values()] }), {
      onConnect: () => sendBack({ type: 'conn.connected' }),
      onDisconnect: (reason) => sendBack({ type: 'conn.dropped', reason }),
      onAuthError: (message) => sendBack({ type: 'conn.authFailed', message }),
      onEvent: (name, payload) => {
        const seq = seqOf(payload);
        if (seq !== undefined && seq > lastSeq) lastSeq = seq;
        sendBack({ type: 'conn.event', name, payload });
      },
    });
    receive((cmd) => {
      if (cmd.type === 'emit') {
        trackJoin(joins, cmd.event, cmd.arg);
        conn.emit(cmd.event, cmd.arg, (answer) => {
          const seq = seqOf(answer);
          if (seq !== undefined && seq > lastSeq) lastSeq = seq;
          sendBack({ type: 'conn.ack', event: cmd.event, answer });
        });
      } else conn.reconnect();
    });
    return () => conn.close();
  });
}

// trackJoin keeps joins in step with a join or leave event the client emits.
export function trackJoin(joins: Map<string, unknown[]>, event: string, arg: unknown): void {
  const m = /^(join|leave)(.+)$/.exec(event);
  if (!m) return;
  const key = `${m[2]}:${arg === undefined ? '' : String(arg)}`;
  if (m[1] === 'join') joins.set(key, arg === undefined ? [event] : [event, arg]);
  else joins.delete(key);
}

export function seqOf(payload: unknown): number | undefined {
  if (payload && typeof payload === 'object' && 'seq' in payload) {
    const s = (payload as { seq: unknown }).seq;
    if (typeof s === 'number' && Number.isFinite(s)) return s;
  }
  return undefined;
}

export const socketMachine = setup({
  types: {
    context: {} as SocketContext,
    events: {} as SocketEvent,
    emitted: {} as SocketEmitted,
  },
  actors: {
    connection: fromCallback<ConnCommand, ConnectionInput, ConnEvent>(() => {
      throw new Error('socket: provide actors.connection');
    }),
    refreshToken: fromPromise<void>(async () => {
      throw new Error('socket: provide actors.refreshToken');
    }),
  },
  delays: {
    authBackoff: ({ context }) => authBackoffMs(context.authFailures),
  },
  guards: {
    isNew: ({ context, event }) => {
      if (event.type !== 'conn.event') return false;
      const seq = seqOf(event.payload);
      return seq === undefined || seq > context.lastSeq;
    },
    isResync: ({ event }) => event.type === 'conn.event' && event.name === 'resync',
  },
  actions: {
    trackSeq: assign({
      lastSeq: ({ context, event }) => {
        const seq =
          event.type === 'conn.event' ? seqOf(event.payload) : event.type === 'conn.ack' ? seqOf(event.answer) : undefined;
        return seq !== undefined && seq > context.lastSeq ? seq : context.lastSeq;
      },
    }),
    forward: emit(({ event }) => {
      const e = event as Extract<SocketEvent, { type: 'conn.event' }>;
      return { type: 'realtime' as const, name: e.name, payload: e.payload };
    }),
    announceResync: emit(({ event }) => {
      const e = event as Extract<SocketEvent, { type: 'conn.event' }>;
      const reason = (e.payload as { reason?: string } | null)?.reason ?? 'unknown';
      return { type: 'resync' as const, reason };
    }),
    addRoom: assign({
      rooms: ({ context, event }) => {
        if (event.type !== 'socket.join') return context.rooms;
        return { ...context.rooms, [roomKey(event.room)]: event.room };
      },
    }),
    removeRoom: assign({
      rooms: ({ context, event }) => {
        if (event.type !== 'socket.leave') return context.rooms;
        const next = { ...context.rooms };
        delete next[roomKey(event.room)];
        return next;
      },
    }),
    sendJoin: enqueueActions(({ event, enqueue }) => {
      if (event.type !== 'socket.join' && event.type !== 'socket.leave') return;
      const [name, arg] = joinFrame(event.room, event.type === 'socket.leave');
      enqueue.sendTo('connection', { type: 'emit', event: name, arg } satisfies ConnCommand);
    }),
    rejoinAll: enqueueActions(({ context, enqueue }) => {
      for (const room of Object.values(context.rooms)) {
        const [name, arg] = joinFrame(room, false);
        enqueue.sendTo('connection', { type: 'emit', event: name, arg } satisfies ConnCommand);
      }
    }),
    countAttempt: assign({ attempts: ({ context }) => context.attempts + 1 }),
    resetAttempts: assign({ attempts: 0, authFailures: 0 }),
    countAuthFailure: assign({ authFailures: ({ context }) => context.authFailures + 1 }),
    announceUp: emit({ type: 'status' as const, connected: true }),
    announceDown: emit({ type: 'status' as const, connected: false }),
  },
}).createMachine({
  id: 'socket',
  context: { lastSeq: 0, rooms: {}, attempts: 0, authFailures: 0 },
  initial: 'idle',
  on: {
    'socket.join': { actions: 'addRoom' },
    'socket.leave': { actions: 'removeRoom' },
  },
  states: {
    idle: {
      on: { 'socket.start': 'active' },
    },
    active: {
      invoke: {
        id: 'connection',
        src: 'connection',
        input: ({ context }) => ({ lastSeq: context.lastSeq }),
      },
      on: {
        'socket.stop': 'idle',
        'conn.event': [
          { guard: 'isResync', actions: ['trackSeq', 'announceResync'] },
          { guard: 'isNew', actions: ['trackSeq', 'forward'] },
          // A replayed event this tab has seen already: dropped.
        ],
        'conn.authFailed': { target: 'refreshing', actions: 'countAuthFailure' },
        // A join's ack says the room is complete up to its seq.
        'conn.ack': { actions: 'trackSeq' },
      },
      initial: 'connecting',
      states: {
        connecting: {
          tags: ['offline'],
          on: { 'conn.connected': 'connected', 'conn.dropped': 'reconnecting' },
        },
        connected: {
          entry: ['resetAttempts', 'rejoinAll', 'announceUp'],
          on: {
            'conn.dropped': { target: 'reconnecting', actions: 'announceDown' },
            'socket.join': { actions: ['addRoom', 'sendJoin'] },
            'socket.leave': { actions: ['removeRoom', 'sendJoin'] },
          },
        },
        reconnecting: {
          tags: ['offline'],
          entry: 'countAttempt',
          on: {
            'conn.connected': 'connected',
            'conn.dropped': { target: 'reconnecting', reenter: true },
          },
        },
      },
    },
    refreshing: {
      tags: ['offline'],
      invoke: {
        src: 'refreshToken',
        onDone: 'waiting',
        onError: 'idle',
      },
      on: { 'socket.stop': 'idle' },
    },
    waiting: {
      tags: ['offline'],
      after: { authBackoff: 'active' },
      on: { 'socket.stop': 'idle' },
    },
  },
});
