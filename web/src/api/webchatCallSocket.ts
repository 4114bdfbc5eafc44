// The video call's signalling over the web chat socket (docs/calls.md): a web chat
// visitor's call page — opened from the widget as /call/<token>#via=webchat&c=<connection>&v=<visitor token> —
// signals through the web chat's own websocket (/webchat/ws) as that visitor,
// instead of the gateway. It offers the CallSocket interface of callSocket.ts, so
// the call session and machine are the same for both. Protocol: docs/api.md
// section 5 (call.join, call.signal; call.joined, call.ack, call, error).
//
// Each request carries an id the server's answer repeats (call.joined or call.ack,
// or an error frame with the ERR_… code). No reconnection, as on the gateway: a
// dropped socket ends the call on the server (the attendant is told "gone").
import type { CallFrame, CallSocket, CallSocketFactory, CallSocketHandlers, JoinAck, OutSignal } from './callSocket';

// Where the widget's socket is: its connection and the visitor's token.
export interface WebchatCallLink {
  connection: string;
  visitor: string;
}

// webchatCallLink reads the fragment the widget adds to a call link; null when the
// page was not opened from the widget (the gateway serves it then).
export function webchatCallLink(hash: string): WebchatCallLink | null {
  const q = new URLSearchParams(hash.replace(/^#/, ''));
  const connection = q.get('c') ?? '';
  const visitor = q.get('v') ?? '';
  if (q.get('via') !== 'webchat' || !/^[1-9][0-9]{0,17}$/.test(connection) || !/^[A-Za-z0-9_.-]{1,128}$/.test(visitor)) return null;
  return { connection, visitor };
}

export interface WebchatCallSocketOptions {
  // The websocket URL; default: /webchat/ws of this page's origin.
  url?: string;
  // The WebSocket constructor (tests); default: the browser's.
  WebSocket?: typeof WebSocket;
  // How long an answer may take; default 15 s, as the gateway's acks.
  timeoutMs?: number;
}

type Pending = { resolve: (f: ServerFrame) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> };

type ServerFrame = { type?: string; id?: string; code?: string; call?: CallFrame } & Partial<JoinAck>;

export function webchatCallSocket(link: WebchatCallLink, opts: WebchatCallSocketOptions = {}): CallSocketFactory {
  return (token: string, h: CallSocketHandlers): CallSocket => {
    const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    const url = opts.url ?? `${scheme}//${window.location.host}/webchat/ws?c=${link.connection}&v=${encodeURIComponent(link.visitor)}`;
    const WS = opts.WebSocket ?? WebSocket;
    const timeoutMs = opts.timeoutMs ?? 15_000;
    const ws = new WS(url);
    const pending = new Map<string, Pending>();
    let seq = 0;
    let closed = false;
    // The code of an error frame that named no request (the server says why before
    // it closes: ERR_WAPP_NOT_INITIALIZED, ERR_TOO_MANY_ATTEMPTS…).
    let lastError = '';

    const opened = new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve());
      ws.addEventListener('close', () => reject(new Error('ERR_UNAVAILABLE')));
    });
    opened.catch(() => undefined); // a socket that never opens is reported through onClosed

    const end = (reason: string) => {
      for (const p of pending.values()) {
        clearTimeout(p.timer);
        p.reject(new Error('ERR_UNAVAILABLE'));
      }
      pending.clear();
      if (closed) return;
      closed = true;
      h.onClosed(reason);
    };

    ws.addEventListener('message', (ev: MessageEvent) => {
      let f: ServerFrame;
      try {
        f = JSON.parse(String(ev.data)) as ServerFrame;
      } catch {
        return;
      }
      const p = f.id ? pending.get(f.id) : undefined;
      switch (f.type) {
        case 'call':
          if (f.call && !closed) h.onFrame(f.call);
          return;
        case 'call.joined':
        case 'call.ack':
          if (p) {
            pending.delete(f.id!);
            clearTimeout(p.timer);
            p.resolve(f);
          }
          return;
        case 'error':
          if (p) {
            pending.delete(f.id!);
            clearTimeout(p.timer);
            p.reject(new Error(f.code ?? 'ERR_INTERNAL'));
          } else if (!f.id && f.code) lastError = f.code;
          return;
        default: // welcome, message, pong: the widget's business, not the call's
      }
    });
    ws.addEventListener('close', (ev: CloseEvent) => end(lastError || `webchat socket closed (${ev.code})`));

    const ask = async (frame: Record<string, unknown>): Promise<ServerFrame> => {
      await opened;
      if (closed) throw new Error('ERR_UNAVAILABLE');
      const id = `call-${++seq}`;
      return new Promise<ServerFrame>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error('ERR_UNAVAILABLE'));
        }, timeoutMs);
        pending.set(id, { resolve, reject, timer });
        ws.send(JSON.stringify({ ...frame, id }));
      });
    };

    return {
      // A web chat visitor is always the call's customer: its token is the link's.
      join: async (attendantToken) => {
        if (attendantToken) throw new Error('ERR_VALIDATION');
        const a = await ask({ type: 'call.join', token });
        return { callId: a.callId!, role: a.role!, iceServers: a.iceServers ?? [] };
      },
      signal: async (callId: string, s: OutSignal) => {
        await ask({ type: 'call.signal', signal: { callId, ...s } });
      },
      close: () => {
        closed = true;
        for (const p of pending.values()) clearTimeout(p.timer);
        pending.clear();
        ws.close(1000);
      },
    };
  };
}
