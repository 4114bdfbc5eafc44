// Web chat visitors driven from Node (the global WebSocket: Node 22, or Node 20 with
// --experimental-websocket), speaking the widget's protocol (transport/channel/webchat/
// doc.go). Used by the benchmark to stream inbound messages — each one a ticket update
// and a message event on the attendants' sockets — at a steady rate.

export function webSocketAvailable() {
  return typeof globalThis.WebSocket === 'function';
}

const delay = (ms) => new Promise((r) => setTimeout(r, ms));

// Visitor is one widget: a socket, a visitor token, acks and errors by message id.
class Visitor {
  constructor(wsUrl, name) {
    this.wsUrl = wsUrl;
    this.name = name;
    this.acked = 0;
    this.errors = new Map(); // code → count
    this.waiting = new Map(); // id → resolve
    this.seq = 0;
  }

  open(timeoutMs = 10_000) {
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`${this.name}: no welcome in ${timeoutMs} ms`)), timeoutMs);
      const ws = new WebSocket(this.wsUrl);
      this.ws = ws;
      ws.addEventListener('message', (ev) => {
        let f;
        try {
          f = JSON.parse(ev.data);
        } catch {
          return;
        }
        if (f.type === 'welcome') {
          clearTimeout(timer);
          ws.send(JSON.stringify({ type: 'hello', name: this.name, email: '' }));
          ok();
        } else if (f.type === 'ack') {
          this.acked += 1;
          this.waiting.get(f.id)?.();
          this.waiting.delete(f.id);
        } else if (f.type === 'error') {
          this.errors.set(f.code, (this.errors.get(f.code) ?? 0) + 1);
        }
      });
      ws.addEventListener('error', () => fail(new Error(`${this.name}: socket error`)));
      ws.addEventListener('close', (ev) => {
        this.closed = ev.code;
        clearInterval(this.keepalive);
      });
      // The server closes a socket it has heard nothing from for 45 s; the widget pings.
      this.keepalive = setInterval(() => ws.readyState === 1 && ws.send('{"type":"ping"}'), 10_000);
    });
  }

  // send a message; resolves when the server acknowledged it (durable).
  send(body) {
    this.seq += 1;
    const id = `bench-${this.seq}`;
    const acked = new Promise((ok) => this.waiting.set(id, ok));
    this.ws.send(JSON.stringify({ type: 'message', id, body }));
    return acked;
  }

  close() {
    clearInterval(this.keepalive);
    try {
      this.ws?.close();
    } catch {
      // already closed
    }
  }
}

// openVisitors connects n visitors and has each send a first message (which opens its
// ticket), resolving once every first message is acknowledged.
export async function openVisitors(base, connId, n, namePrefix) {
  const wsBase = base.replace(/^http/, 'ws');
  const visitors = Array.from({ length: n }, (_, i) => new Visitor(`${wsBase}/webchat/ws?c=${connId}`, `${namePrefix} ${i + 1}`));
  await Promise.all(visitors.map((v) => v.open()));
  await Promise.all(visitors.map((v, i) => v.send(`${namePrefix} ${i + 1}: olá`)));
  return visitors;
}

// stream sends `rate` messages per second in total, round-robin over the visitors (each
// stays under the per-visitor limit of 10/s when rate/visitors < 10), until stop() is
// called. Returns { stop } → Promise of { sent, skipped, acked, seconds, errors, closed }.
export function stream(visitors, rate) {
  const started = performance.now();
  const ackedBefore = visitors.reduce((s, v) => s + v.acked, 0);
  let sent = 0;
  let skipped = 0; // due while its visitor's socket was not open
  let running = true;
  const loop = (async () => {
    // Send on a schedule (not a fixed interval) so that timer jitter does not lower the rate.
    while (running) {
      const due = Math.floor(((performance.now() - started) / 1000) * rate);
      while (sent + skipped < due) {
        const v = visitors[sent % visitors.length];
        if (v.ws.readyState === 1) {
          v.send(`mensagem ${sent + 1} de ${v.name}`);
          sent += 1;
        } else {
          skipped += 1;
        }
      }
      await delay(5);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const seconds = (performance.now() - started) / 1000;
      // Give the last messages a moment to be acknowledged.
      const before = Date.now();
      const acked = () => visitors.reduce((s, v) => s + v.acked, 0) - ackedBefore;
      const target = sent;
      while (acked() < target && Date.now() - before < 5_000) await delay(50);
      const errors = {};
      for (const v of visitors) for (const [code, c] of v.errors) errors[code] = (errors[code] ?? 0) + c;
      const closed = visitors.filter((v) => v.closed !== undefined).map((v) => v.closed);
      return { sent, skipped, acked: acked(), seconds, errors, closed };
    },
  };
}
