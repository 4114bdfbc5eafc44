import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallSocketHandlers } from './callSocket';
import { webchatCallLink, webchatCallSocket } from './webchatCallSocket';

// A WebSocket the test drives: it records what the adapter sends and plays the
// web chat server's side.
class FakeWS extends EventTarget {
  static last: FakeWS | null = null;
  readonly url: string;
  sent: Record<string, unknown>[] = [];
  closedWith: number | null = null;
  constructor(url: string) {
    super();
    this.url = url;
    FakeWS.last = this;
  }
  send(data: string) {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(code?: number) {
    this.closedWith = code ?? 1005;
  }
  open() {
    this.dispatchEvent(new Event('open'));
  }
  frame(f: unknown) {
    this.dispatchEvent(new MessageEvent('message', { data: JSON.stringify(f) }));
  }
  drop(code: number) {
    this.dispatchEvent(new CloseEvent('close', { code }));
  }
}

const link = { connection: '7', visitor: 'AbC_d-123.sig' };

function open(timeoutMs?: number) {
  const h: CallSocketHandlers & { frames: unknown[]; closed: string[] } = {
    frames: [],
    closed: [],
    onFrame: (f) => h.frames.push(f),
    onClosed: (r) => h.closed.push(r),
  };
  const sock = webchatCallSocket(link, { WebSocket: FakeWS as unknown as typeof WebSocket, timeoutMs })('call1.tok', h);
  return { sock, h, ws: FakeWS.last! };
}

// flush lets the adapter's awaits run.
const flush = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => vi.useRealTimers());

describe('webchatCallLink', () => {
  it('reads the fragment the widget adds, and nothing else', () => {
    expect(webchatCallLink('#via=webchat&c=7&v=AbC_d-123.sig')).toEqual(link);
    expect(webchatCallLink('')).toBeNull();
    expect(webchatCallLink('#call1.attendant')).toBeNull();
    expect(webchatCallLink('#via=gateway&c=7&v=x')).toBeNull();
    expect(webchatCallLink('#via=webchat&c=07&v=x')).toBeNull();
    expect(webchatCallLink('#via=webchat&c=7')).toBeNull();
    expect(webchatCallLink('#via=webchat&c=7&v=a%20b')).toBeNull();
    expect(webchatCallLink('#via=webchat&c=7&v=x&c=8')).toEqual({ connection: '7', visitor: 'x' });
  });
});

describe('webchatCallSocket', () => {
  it("opens the web chat socket of the page's origin as the visitor", () => {
    const { ws } = open();
    expect(ws.url).toBe(`ws://${window.location.host}/webchat/ws?c=7&v=AbC_d-123.sig`);
  });

  it('joins with the link token once open and resolves with call.joined', async () => {
    const { sock, ws } = open();
    const joined = sock.join();
    await flush();
    expect(ws.sent).toEqual([]); // not before the socket is open
    ws.open();
    await flush();
    expect(ws.sent).toEqual([{ type: 'call.join', token: 'call1.tok', id: 'call-1' }]);
    ws.frame({ type: 'welcome', visitor: 'v', history: [] }); // the chat's, ignored
    ws.frame({ type: 'call.joined', id: 'call-1', callId: 'C', role: 'customer', iceServers: [{ urls: ['stun:s'] }] });
    await expect(joined).resolves.toEqual({ callId: 'C', role: 'customer', iceServers: [{ urls: ['stun:s'] }] });
  });

  it('refuses an attendant token: the web chat carries customers only', async () => {
    const { sock, ws } = open();
    ws.open();
    await expect(sock.join('call1.attendant')).rejects.toThrow('ERR_VALIDATION');
    expect(ws.sent).toEqual([]);
  });

  it('rejects a refused join with the error code the server named it with', async () => {
    const { sock, ws } = open();
    ws.open();
    const joined = sock.join();
    await flush();
    ws.frame({ type: 'error', code: 'ERR_NO_PERMISSION', id: 'call-9' }); // another request's
    ws.frame({ type: 'error', code: 'ERR_NO_PERMISSION', id: 'call-1' });
    await expect(joined).rejects.toThrow('ERR_NO_PERMISSION');
  });

  it('sends signals with their call id and resolves on call.ack', async () => {
    const { sock, ws } = open();
    ws.open();
    const a = sock.signal('C', { type: 'answer', sdp: 'v=0' });
    const b = sock.signal('C', { type: 'candidate', candidate: { candidate: 'c', sdpMid: '0', sdpMLineIndex: 0 } });
    await flush();
    expect(ws.sent).toEqual([
      { type: 'call.signal', signal: { callId: 'C', type: 'answer', sdp: 'v=0' }, id: 'call-1' },
      { type: 'call.signal', signal: { callId: 'C', type: 'candidate', candidate: { candidate: 'c', sdpMid: '0', sdpMLineIndex: 0 } }, id: 'call-2' },
    ]);
    ws.frame({ type: 'call.ack', id: 'call-2' });
    ws.frame({ type: 'error', code: 'ERR_NOT_FOUND', id: 'call-1' });
    await expect(b).resolves.toBeUndefined();
    await expect(a).rejects.toThrow('ERR_NOT_FOUND');
  });

  it("hands the relay's call frames to the session, and nothing else", () => {
    const { h, ws } = open();
    ws.open();
    ws.frame({ type: 'message', id: 'wc-out:1', body: 'oi', fromMe: true });
    ws.frame({ type: 'call', call: { callId: 'C', type: 'offer', sdp: 'v=0', from: 'attendant' } });
    ws.frame({ type: 'call', call: { callId: 'C', type: 'hold', from: 'attendant' } });
    ws.dispatchEvent(new MessageEvent('message', { data: 'not json' }));
    expect(h.frames).toEqual([
      { callId: 'C', type: 'offer', sdp: 'v=0', from: 'attendant' },
      { callId: 'C', type: 'hold', from: 'attendant' },
    ]);
  });

  it('reports a dropped socket once, with the code the server gave, and fails what was pending', async () => {
    const { sock, h, ws } = open();
    ws.open();
    const joined = sock.join();
    await flush();
    ws.frame({ type: 'error', code: 'ERR_WAPP_NOT_INITIALIZED' });
    ws.drop(4004);
    ws.drop(4004);
    await expect(joined).rejects.toThrow('ERR_UNAVAILABLE');
    expect(h.closed).toEqual(['ERR_WAPP_NOT_INITIALIZED']);
  });

  it('reports a socket that never opened, and an unanswered request times out', async () => {
    const never = open();
    never.ws.drop(1006);
    expect(never.h.closed).toEqual(['webchat socket closed (1006)']);
    await expect(never.sock.join()).rejects.toThrow('ERR_UNAVAILABLE');

    const { sock, ws } = open(50);
    ws.open();
    await expect(sock.signal('C', { type: 'hold' })).rejects.toThrow('ERR_UNAVAILABLE');
  });

  it('closes quietly: no onClosed for its own close', () => {
    const { sock, h, ws } = open();
    ws.open();
    sock.close();
    expect(ws.closedWith).toBe(1000);
    ws.drop(1000);
    expect(h.closed).toEqual([]);
  });
});
