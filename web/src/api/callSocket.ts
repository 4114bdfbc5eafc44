// The video call's signalling connection (docs/calls.md): its own socket.io-client
// connection to the gateway, authenticated by the attendant's access token or by the
// customer's call token (a call guest, which hears nothing else). No reconnection: a
// dropped signalling socket ends the call on the server (the other party is told
// "gone"), so the page reports the call as failed instead of trying to resume.
import { io, type Socket } from 'socket.io-client';

export type CallRole = 'attendant' | 'customer';

export interface IceServer {
  urls: string[];
  username?: string;
  credential?: string;
}

export interface JoinAck {
  callId: string;
  role: CallRole;
  iceServers: IceServer[];
}

// What the other party sent, or what the relay says about it.
export type CallFrame =
  | { callId: string; from: CallRole; type: 'offer' | 'answer'; sdp: string }
  | { callId: string; from: CallRole; type: 'candidate'; candidate: RTCIceCandidateInit }
  | { callId: string; from: CallRole; type: 'hold' | 'unhold' | 'end' | 'joined' | 'gone' | 'replaced' };

export type OutSignal =
  | { type: 'offer' | 'answer'; sdp: string }
  | { type: 'candidate'; candidate: RTCIceCandidateInit }
  | { type: 'hold' | 'unhold' | 'end' };

export interface CallSocketHandlers {
  onFrame(frame: CallFrame): void;
  // The socket is gone (network, server restart, refused handshake).
  onClosed(reason: string): void;
}

export interface CallSocket {
  // join answers the relay's ack or rejects with the ERR_… code.
  join(attendantToken?: string): Promise<JoinAck>;
  signal(callId: string, s: OutSignal): Promise<void>;
  close(): void;
}

type Ack = { ok?: boolean; error?: string } & Partial<JoinAck>;

export type CallSocketFactory = (token: string, h: CallSocketHandlers) => CallSocket;

export const openCallSocket: CallSocketFactory = (token, h) => {
  const socket: Socket = io({ path: '/socket.io', transports: ['websocket'], auth: { token }, reconnection: false });
  let closed = false;
  const end = (reason: string) => {
    if (closed) return;
    closed = true;
    h.onClosed(reason);
  };
  socket.on('call', (frame: CallFrame) => h.onFrame(frame));
  socket.on('disconnect', (reason) => end(reason));
  socket.on('connect_error', (err) => end(err.message));
  const ask = (event: string, arg?: unknown) =>
    new Promise<Ack>((resolve, reject) => {
      const cb = (a: Ack) => (a && a.ok ? resolve(a) : reject(new Error(a?.error ?? 'ERR_INTERNAL')));
      const timed = socket.timeout(15_000);
      if (arg === undefined) timed.emit(event, (err: Error | null, a: Ack) => (err ? reject(new Error('ERR_UNAVAILABLE')) : cb(a)));
      else timed.emit(event, arg, (err: Error | null, a: Ack) => (err ? reject(new Error('ERR_UNAVAILABLE')) : cb(a)));
    });
  return {
    join: async (attendantToken) => {
      const a = await ask('call.join', attendantToken ? { token: attendantToken } : undefined);
      return { callId: a.callId!, role: a.role!, iceServers: a.iceServers ?? [] };
    },
    signal: async (callId, s) => {
      await ask('call.signal', { callId, ...s });
    },
    close: () => {
      closed = true;
      socket.removeAllListeners();
      socket.close();
    },
  };
};
