// The realtime transport: socket.io-client on the page's origin, websocket only, with
// `auth: {token, lastSeq}` read afresh on every (re)connect so the server can replay
// what this tab missed. No React and no state beyond the socket: the socket machine
// (machines/socket.machine.ts) owns rooms, seq and reconnection policy.
import { io, type Socket } from 'socket.io-client';

export const serverEvents = [
  'ticket',
  'appMessage',
  'contact',
  'whatsapp',
  'whatsappSession',
  // Reference data (docs/api.md section 4.4).
  'user',
  'queue',
  'tags',
  'quickAnswer',
  'catalog',
  'category',
  'announcement',
  // Ticket invitations, to one user's sockets (docs/api.md).
  'invitation',
  'scheduledMessage',
  'agenda',
  'settings',
  // Calendar and kanban (docs/api.md, agenda): agenda tasks and bookings.
  'agenda',
  'booking',
  // The booking scheduler (docs/api.md section 2.8b).
  'place',
  'position',
  'slots',
  // The tenant list of /Super (docs/api.md, tenants): tenants:manage holders only.
  'tenant',
  // The messaging API's tokens, to api-tokens:manage holders (docs/messaging-api.md).
  'apiToken',
  // The internal chat, to its participants only (docs/api.md section 4.4).
  'chat',
  // Who is online changed (supervision screens only; docs/api.md, "Supervision").
  'presence',
  // The reception menu's bot levels, to bots:manage holders (docs/api.md, bots).
  'bot',
  // Bizflow flows changed (flows:manage holders only; docs/api.md, "Bizflow flows").
  'flow',
  // The tenant's AI configuration changed (docs/ai.md): the composer's AI toggles.
  'aiConfig',
  // Campaigns and broadcasts: progress and status (business section only).
  'campaign',
  'campaignCredits',
  // Sequential WhatsApp groups: a batch's progress (groups:manage holders only).
  'groupBatch',
  'resync',
] as const;

export type ServerEventName = (typeof serverEvents)[number];

export interface SocketAuth {
  token: string | null;
  lastSeq: number;
  // The rooms the client is about to rejoin, each its join event as an array
  // (['joinTickets', 'open']): the server joins them at connect and replays what was
  // missed in all of them as one stream in seq order.
  rooms?: unknown[][];
}

export interface RealtimeHandlers {
  onConnect(): void;
  // willRetry: socket.io is reconnecting on its own.
  onDisconnect(reason: string, willRetry: boolean): void;
  // The server refused the handshake (bad or expired token): the caller refreshes
  // the token and calls reconnect().
  onAuthError(message: string): void;
  onEvent(name: ServerEventName, payload: unknown): void;
}

export interface RealtimeConnection {
  // onAck receives the server's answer: {ok: true, seq} for a join ("you have every
  // event of this room up to seq") or {error: 'ERR_…'}.
  emit(event: string, arg?: unknown, onAck?: (answer: unknown) => void): void;
  reconnect(): void;
  close(): void;
}

export type RealtimeTransport = (getAuth: () => SocketAuth, h: RealtimeHandlers) => RealtimeConnection;

// The server pings every 18 s (spec section 9); socket.io-client follows the server's
// ping interval by itself.
export const socketIoTransport: RealtimeTransport = (getAuth, h) => {
  const socket: Socket = io({
    path: '/socket.io',
    transports: ['websocket'],
    auth: (cb) => cb({ ...getAuth() }),
    reconnection: true,
    reconnectionDelay: 1000,
    reconnectionDelayMax: 10000,
    randomizationFactor: 0.5,
  });
  socket.on('connect', () => h.onConnect());
  socket.on('disconnect', (reason) => h.onDisconnect(reason, socket.active));
  socket.on('connect_error', (err) => {
    // socket.active is false when the server's middleware refused us: no auto retry.
    if (!socket.active) h.onAuthError(err.message);
    else h.onDisconnect(err.message, true);
  });
  for (const name of serverEvents) socket.on(name, (payload: unknown) => h.onEvent(name, payload));
  return {
    emit: (event, arg, onAck) => {
      const ack = onAck ?? (() => {});
      if (arg === undefined) socket.emit(event, ack);
      else socket.emit(event, arg, ack);
    },
    reconnect: () => {
      socket.connect();
    },
    close: () => {
      socket.removeAllListeners();
      socket.close();
    },
  };
};
