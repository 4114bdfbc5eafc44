// The embeddable web chat widget (transport/channel/webchat/assets/widget.js, the
// script the embed snippet of WebChatEmbed loads) run in jsdom against a fake
// socket and fake timers: how it sends the visitor's pending messages — numbered in
// the order typed, one at a time, paced below the server's limits — and how it
// waits when the server refuses one.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const source = readFileSync(resolve(process.cwd(), '../transport/channel/webchat/assets/widget.js'), 'utf8');
const KEY = 'atende.webchat.7';

type Frame = Record<string, unknown> & { type: string };

// FakeSocket stands in for the browser's WebSocket: it records what the widget
// sends, and the test delivers the server's frames and the close.
class FakeSocket {
  static all: FakeSocket[] = [];
  sent: Frame[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((ev: { data: string }) => void) | null = null;
  onclose: ((ev: { code: number }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(JSON.parse(data) as Frame);
  }
  close() {}
  receive(f: Frame) {
    this.onmessage?.({ data: JSON.stringify(f) });
  }
  welcome() {
    this.onopen?.();
    this.receive({ type: 'welcome', visitor: 'visitor.sig', timeZone: 'America/Cuiaba', history: [] });
  }
  messages() {
    return this.sent.filter((f) => f.type === 'message');
  }
}

const latest = () => FakeSocket.all[FakeSocket.all.length - 1];

// FakeTabs stands in for the browser's BroadcastChannel between the visitor's tabs:
// it records what the widget posts, and the test delivers what another tab posted.
class FakeTabs {
  static all: FakeTabs[] = [];
  posted: unknown[] = [];
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  constructor(readonly name: string) {
    FakeTabs.all.push(this);
  }
  postMessage(data: unknown) {
    this.posted.push(data);
  }
  close() {}
  fromOtherTab(data: unknown) {
    this.onmessage?.({ data });
  }
}

interface Pending {
  id: string;
  body: string;
  at: string;
  seq?: number;
}

function pending(n: number, from = 1): Pending[] {
  return Array.from({ length: n }, (_, i) => ({ id: `p${from + i}`, body: `message ${from + i}`, at: '2026-11-27T09:00:00.000Z', seq: from + i }));
}

// boot runs the widget as the embed snippet would, with what an earlier page left
// in localStorage.
function boot(stored?: object) {
  if (stored) window.localStorage.setItem(KEY, JSON.stringify(stored));
  const script = document.createElement('script');
  script.src = 'https://atende.example/webchat/widget.js';
  script.setAttribute('data-connection', '7');
  Object.defineProperty(document, 'currentScript', { configurable: true, get: () => script });
  new Function(source)();
  const root = (document.body.lastElementChild as HTMLElement).shadowRoot!;
  return {
    type(body: string) {
      const form = root.querySelector('form:not(.intro)') as HTMLFormElement;
      (form.querySelector('textarea') as HTMLTextAreaElement).value = body;
      form.requestSubmit();
    },
  };
}

// reload ends the widget's page (its timers die with it) and boots it again on
// the same localStorage.
function reload() {
  vi.clearAllTimers();
  document.body.innerHTML = '';
  delete (window as unknown as Record<string, unknown>).__atendeWebchat;
  return boot();
}

function stored(): { seq: number; pending: Pending[] } {
  return JSON.parse(window.localStorage.getItem(KEY) ?? '{}');
}

// serve answers each message the widget sent and the server has not answered yet,
// with answer (an ack when it returns undefined, nothing when null, else its
// error frame), until the widget sends nothing more; it returns the messages it
// saw.
function serve(sock: FakeSocket, answer: (f: Frame) => Frame | null | undefined = () => undefined) {
  const done: Frame[] = [];
  let seen = (sock as FakeSocket & { served?: number }).served ?? 0;
  for (let all = sock.messages(); seen < all.length; all = sock.messages()) {
    const f = all[seen++];
    done.push(f);
    const a = answer(f);
    if (a !== null) sock.receive(a ?? { type: 'ack', id: f.id as string });
  }
  (sock as FakeSocket & { served?: number }).served = seen;
  return done;
}

beforeEach(() => {
  vi.useFakeTimers();
  FakeSocket.all = [];
  FakeTabs.all = [];
  vi.stubGlobal('WebSocket', FakeSocket);
  vi.stubGlobal('BroadcastChannel', FakeTabs);
});

afterEach(() => {
  vi.clearAllTimers();
  vi.useRealTimers();
  document.body.innerHTML = '';
  delete (window as unknown as Record<string, unknown>).__atendeWebchat;
  delete (document as unknown as Record<string, unknown>).currentScript;
});

describe('web chat widget', () => {
  it('drains a backlog after a stall one at a time, in order, below the server limits', () => {
    boot({ v: 'visitor.sig', seq: 30, pending: pending(30) });
    const sock = latest();
    sock.welcome();
    expect(sock.sent.find((f) => f.type === 'resume')).toEqual({ type: 'resume', seq: 1 }); // where the order resumes
    expect(sock.messages()).toHaveLength(1); // one in flight, not the whole queue

    const sentAt: number[] = [];
    const order: number[] = [];
    for (let ms = 0; ms <= 20000 && order.length < 30; ms += 50) {
      for (const f of serve(sock)) {
        sentAt.push(Date.now());
        order.push(f.seq as number);
      }
      vi.advanceTimersByTime(50);
    }
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(sock.messages().map((f) => f.id)).toEqual(pending(30).map((p) => p.id));
    // The server's bucket for a visitor's messages (10 a second, burst 20) never
    // runs dry: a burst of 4, then 4 a second.
    let tokens = 20;
    let last = sentAt[0];
    for (const t of sentAt) {
      tokens = Math.min(20, tokens + ((t - last) / 1000) * 10);
      last = t;
      expect(tokens).toBeGreaterThanOrEqual(1);
      tokens--;
    }
    expect(sentAt[29] - sentAt[0]).toBeGreaterThanOrEqual(6500);
    for (const t of sentAt) expect(sentAt.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(8);
    expect(stored().pending).toEqual([]);
  });

  it('waits as long as a rate refusal says, then sends the same message again before the next', () => {
    boot({ v: 'visitor.sig', seq: 5, pending: pending(5) });
    const sock = latest();
    sock.welcome();
    let refused = false;
    serve(sock, (f) => {
      if (f.seq !== 3 || refused) return undefined;
      refused = true;
      return { type: 'error', code: 'ERR_TOO_MANY_ATTEMPTS', id: f.id as string, limit: 'rate', retryAfter: 2 };
    });
    expect(sock.messages().map((f) => f.seq)).toEqual([1, 2, 3]);
    vi.advanceTimersByTime(1999);
    expect(sock.messages()).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(sock.messages().map((f) => f.seq)).toEqual([1, 2, 3, 3]);
    for (let i = 0; i < 40 && stored().pending.length; i++) {
      serve(sock);
      vi.advanceTimersByTime(250);
    }
    expect(sock.messages().map((f) => f.seq)).toEqual([1, 2, 3, 3, 4, 5]);
  });

  it('backs off longer after refusals in a row, and is never closed for them', () => {
    boot({ v: 'visitor.sig', seq: 1, pending: pending(1) });
    const sock = latest();
    sock.welcome();
    const refuse = (f: Frame): Frame => ({ type: 'error', code: 'ERR_TOO_MANY_ATTEMPTS', id: f.id as string, limit: 'rate', retryAfter: 1 });
    const at: number[] = [];
    for (let ms = 0; ms < 40000; ms += 100) {
      for (let n = serve(sock, refuse).length; n > 0; n--) at.push(Date.now());
      vi.advanceTimersByTime(100);
    }
    const gaps = at.slice(1).map((t, i) => t - at[i]);
    // 1 s, 2 s, 4 s, 8 s, 16 s: the refusals of a rate never pile up to the ten in a
    // row that close the socket with 1008.
    expect(gaps.slice(0, 5)).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(at.length).toBeLessThan(10);
  });

  it('holds a message the server has out of order for retryAfter, then sends it again', () => {
    boot({ v: 'visitor.sig', seq: 3, pending: pending(2, 2) });
    const sock = latest();
    sock.welcome();
    serve(sock, (f) => (f.seq === 2 ? { type: 'error', code: 'ERR_OUT_OF_ORDER', id: f.id as string, retryAfter: 3, expected: 1 } : undefined));
    vi.advanceTimersByTime(2999);
    expect(sock.messages().map((f) => f.seq)).toEqual([2]);
    vi.advanceTimersByTime(1);
    serve(sock);
    vi.advanceTimersByTime(1000);
    serve(sock);
    expect(sock.messages().map((f) => f.seq)).toEqual([2, 2, 3]);
  });

  it('numbers what the visitor types in order, across a reload, and resends the unanswered first', () => {
    const w = boot();
    w.type('first');
    const sock = latest();
    sock.welcome();
    w.type('second');
    w.type('third');
    serve(sock, (f) => (f.body === 'first' ? undefined : null)); // the first is acked; the second goes out, its socket dies
    vi.advanceTimersByTime(1000);
    expect(sock.messages().map((f) => [f.body, f.seq])).toEqual([
      ['first', 1],
      ['second', 2],
    ]);
    expect(stored().pending.map((p) => [p.body, p.seq])).toEqual([
      ['second', 2],
      ['third', 3],
    ]);

    sock.onclose?.({ code: 1006 });
    const again = reload();
    const next = latest();
    next.welcome();
    again.type('fourth');
    for (let i = 0; i < 10; i++) {
      serve(next);
      vi.advanceTimersByTime(250);
    }
    expect(next.messages().map((f) => [f.body, f.seq])).toEqual([
      ['second', 2],
      ['third', 3],
      ['fourth', 4],
    ]);
  });

  it('takes the next number after the stored one, so tabs never share one', () => {
    const w = boot({ v: 'visitor.sig', seq: 4, pending: [] });
    latest().welcome();
    expect(latest().sent.find((f) => f.type === 'resume')).toEqual({ type: 'resume', seq: 5 }); // the next it gives out
    // Another tab of the visitor numbered messages up to 9 meanwhile.
    window.localStorage.setItem(KEY, JSON.stringify({ ...stored(), seq: 9 }));
    w.type('from this tab');
    expect(latest().messages().map((f) => f.seq)).toEqual([10]);
    expect(stored().seq).toBe(10);
  });

  it('numbers, in their order, the pending messages an older widget left without numbers', () => {
    const old = pending(3).map(({ seq: _seq, ...p }) => p);
    boot({ v: 'visitor.sig', pending: old });
    const sock = latest();
    sock.welcome();
    for (let i = 0; i < 10; i++) {
      serve(sock);
      vi.advanceTimersByTime(250);
    }
    expect(sock.messages().map((f) => [f.id, f.seq])).toEqual([
      ['p1', 1],
      ['p2', 2],
      ['p3', 3],
    ]);
  });

  it('drops a message refused for good and goes on with the next', () => {
    boot({ v: 'visitor.sig', seq: 2, pending: pending(2) });
    const sock = latest();
    sock.welcome();
    serve(sock, (f) => (f.seq === 1 ? { type: 'error', code: 'ERR_VALIDATION', id: f.id as string, fields: { body: 'Invalid value' } } : undefined));
    vi.advanceTimersByTime(1000);
    serve(sock);
    expect(sock.messages().map((f) => f.seq)).toEqual([1, 2]);
    expect(stored().pending).toEqual([]);
  });

  it("tells the visitor's other tabs of a message once the server acknowledged it", () => {
    const w = boot({ v: 'visitor.sig', seq: 0, pending: [] });
    const sock = latest();
    sock.welcome();
    const tabs = FakeTabs.all[0];
    expect(tabs.name).toBe(KEY);
    w.type('olá de uma aba');
    expect(sock.messages()).toHaveLength(1);
    expect(tabs.posted).toEqual([]); // not before the ack: it may still fail
    const [sent] = serve(sock);
    expect(tabs.posted).toEqual([{ id: sent.id, body: 'olá de uma aba', at: expect.any(String) }]);
    // An ack for a message this tab does not hold tells nobody.
    sock.receive({ type: 'ack', id: 'someone-else' });
    expect(tabs.posted).toHaveLength(1);
  });

  it('shows once a message another tab typed, and ignores what is not one', () => {
    boot({ v: 'visitor.sig', seq: 0, pending: [] });
    const sock = latest();
    sock.welcome();
    const tabs = FakeTabs.all[0];
    const root = (document.body.lastElementChild as HTMLElement).shadowRoot!;
    const shown = () => Array.from(root.querySelectorAll('.log .m')).map((m) => m.firstChild?.textContent);
    const m = { id: 'a1b2c3', body: 'typed in tab 2', at: '2026-11-28T18:00:00.000Z' };
    tabs.fromOtherTab(m);
    tabs.fromOtherTab(m);
    // The same message echoed by the server (the other tab on this node) too.
    sock.receive({ type: 'message', id: 'a1b2c3', body: 'typed in tab 2', at: m.at });
    expect(shown()).toEqual(['typed in tab 2']);
    for (const bad of [null, 'text', { id: '<b>x</b>', body: 'x', at: m.at }, { id: 'z1', body: 42, at: m.at },
      { id: 'z2', body: '', at: m.at }, { id: 'z3', body: 'x'.repeat(4097), at: m.at }, { id: 'z4', body: 'x' }]) {
      tabs.fromOtherTab(bad);
    }
    expect(shown()).toEqual(['typed in tab 2']);
  });
});
