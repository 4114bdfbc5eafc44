// Conformance of Atende's Go realtime gateway (transport/socket) with unmodified
// socket.io-client v4 and v3, over transports: ['websocket'].
//
// Started by `go test ./transport/socket -run TestSocketIOClients`, which runs the
// server and sets:
//   ATENDE_URL          base URL of the gateway (http://127.0.0.1:port)
//   ATENDE_FAST_PING_URL the same gateway configured with pingInterval 50 ms
//   ATENDE_CONTROL_URL  base URL of the test control endpoints:
//                         POST /publish {tenant, rooms:["chatBox:42",…], name, payload, queue?} -> {seq}
//                         POST /drop {tenant, user}: close the user's sockets without 41
// Tokens: alice (tenant 1, user 1), bob (tenant 1, user 2), carol (tenant 2, user 3);
// "expired" is an expired session; chat box 666 is forbidden.
'use strict';

const { describe, it, after } = require('node:test');
const assert = require('node:assert/strict');

const URL_ = process.env.ATENDE_URL;
const CONTROL = process.env.ATENDE_CONTROL_URL;
const FAST_PING = process.env.ATENDE_FAST_PING_URL;
if (!URL_ || !CONTROL || !FAST_PING) {
  throw new Error('ATENDE_URL, ATENDE_FAST_PING_URL and ATENDE_CONTROL_URL must be set (run through go test)');
}

const clients = [
  { name: 'socket.io-client v4', io: require('socket.io-client').io, version: 4 },
  { name: 'socket.io-client v3', io: require('socket.io-client-v3').io, version: 3 },
];

const TIMEOUT = 5000;
const open = new Set();

after(() => {
  for (const s of open) s.close();
});

function withTimeout(promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), TIMEOUT);
    }),
  ]).finally(() => clearTimeout(timer));
}

// socket builds a socket (not yet connected) with the gateway's required options.
function socket(client, opts = {}, url = URL_) {
  const s = client.io(url, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    autoConnect: false,
    ...opts,
  });
  open.add(s);
  return s;
}

// connected connects s and resolves once the server accepted it.
function connected(s) {
  return withTimeout(
    new Promise((resolve, reject) => {
      s.once('connect', () => resolve(s));
      s.once('connect_error', (err) => reject(err));
      s.connect();
    }),
    'connect',
  );
}

// refused connects s and resolves with the connect_error.
function refused(s) {
  return withTimeout(
    new Promise((resolve, reject) => {
      s.once('connect', () => reject(new Error('connected, expected a refusal')));
      s.once('connect_error', (err) => {
        s.close(); // v3 would otherwise retry
        resolve(err);
      });
      s.connect();
    }),
    'connect_error',
  );
}

// ack emits an event and resolves with the server's acknowledgement.
function ack(s, event, ...args) {
  return withTimeout(new Promise((resolve) => s.emit(event, ...args, resolve)), `ack of ${event}`);
}

// recorder records every event named name: its arguments, in order.
function recorder(s, name) {
  const seen = [];
  const waiters = [];
  s.on(name, (...args) => {
    seen.push(args);
    for (const w of waiters.splice(0)) w();
  });
  return {
    seen,
    payloads: () => seen.map((args) => args[0]),
    // until resolves once n events were seen.
    until(n) {
      const check = (resolve) => (seen.length >= n ? resolve(seen) : waiters.push(() => check(resolve)));
      return withTimeout(new Promise(check), `${n} ${name} events (have ${seen.length})`);
    },
  };
}

async function control(path, body) {
  const res = await fetch(CONTROL + path, { method: 'POST', body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const publish = (tenant, rooms, name, payload, queue) =>
  control('/publish', { tenant, rooms, name, payload, queue }).then((r) => r.seq);

// authOpts passes the token the way a client version usually does: v4 in auth,
// v3 in the handshake query (both are accepted from both).
const authOpts = (client, token, extra = {}) =>
  client.version === 4 ? { auth: { token, ...extra } } : { query: { token, ...extra } };

for (const client of clients) {
  describe(client.name, () => {
    it('connects with a token in auth or query, Bearer prefix allowed', async () => {
      for (const opts of [{ auth: { token: 'alice' } }, { query: { token: 'alice' } }, { auth: { token: 'Bearer alice' } }]) {
        const s = await connected(socket(client, opts));
        assert.ok(s.id, `socket id with ${JSON.stringify(opts)}`);
        s.close();
      }
    });

    it("answers the server's pings and stays connected", async () => {
      const s = await connected(socket(client, authOpts(client, 'alice'), FAST_PING));
      const disconnects = [];
      s.on('disconnect', (reason) => disconnects.push(reason));
      // pingInterval 50 ms, pingTimeout 200 ms: ten answered pings span twice their sum.
      let pongs = 0;
      await withTimeout(new Promise((resolve) => s.io.engine.on('pong', () => ++pongs === 10 && resolve())), '10 pings');
      assert.deepEqual(disconnects, []);
      assert.equal(s.connected, true);
      assert.equal((await ack(s, 'joinNotification')).ok, true);
      s.close();
    });

    it('refuses a missing or bad token with the error code', async () => {
      assert.equal((await refused(socket(client))).message, 'ERR_SESSION_EXPIRED');
      assert.equal((await refused(socket(client, authOpts(client, 'nobody')))).message, 'ERR_INVALID_TOKEN');
      assert.equal((await refused(socket(client, authOpts(client, 'expired')))).message, 'ERR_SESSION_EXPIRED');
    });

    it('joins rooms with acks and receives published events', async () => {
      const s = await connected(socket(client, authOpts(client, 'alice')));
      const messages = recorder(s, 'appMessage');
      const tickets = recorder(s, 'ticket');
      const join = await ack(s, 'joinChatBox', '42');
      assert.equal(join.ok, true);
      assert.equal(typeof join.seq, 'number');
      assert.deepEqual(await ack(s, 'joinTickets', 'open'), { ok: true, seq: join.seq });
      assert.equal((await ack(s, 'joinNotification')).ok, true);
      assert.deepEqual(await ack(s, 'joinTickets', 'archived'), { error: 'ERR_VALIDATION' });

      const seq = await publish(1, ['chatBox:42'], 'appMessage', { action: 'create', message: { id: 7, body: 'olá' } });
      assert.equal(seq, join.seq + 1);
      const [[payload, offset]] = await messages.until(1);
      assert.deepEqual(payload, { action: 'create', message: { id: 7, body: 'olá' }, seq });
      assert.equal(offset, String(seq)); // the server runs with AppendOffset

      await publish(1, ['tickets:open', 'chatBox:42'], 'ticket', { action: 'update' });
      await tickets.until(1);
      assert.equal((await ack(s, 'leaveChatBox', '42')).ok, true);
      await publish(1, ['chatBox:42'], 'ticket', { action: 'update', left: true });
      await publish(1, ['tickets:open'], 'ticket', { action: 'update', marker: true });
      await tickets.until(2);
      assert.deepEqual(tickets.payloads().map((p) => p.marker || p.left || false), [false, true]);
      s.close();
    });

    it('is refused a forbidden room and gets none of its events', async () => {
      const s = await connected(socket(client, authOpts(client, 'alice')));
      const messages = recorder(s, 'appMessage');
      assert.deepEqual(await ack(s, 'joinChatBox', '666'), { error: 'ERR_NO_PERMISSION' });
      assert.equal((await ack(s, 'joinChatBox', 43)).ok, true);
      await publish(1, ['chatBox:666'], 'appMessage', { secret: true });
      await publish(1, ['chatBox:43'], 'appMessage', { marker: true });
      await messages.until(1);
      assert.equal(messages.seen.length, 1);
      assert.equal(messages.payloads()[0].marker, true);
      s.close();
    });

    it("never sees another tenant's events", async () => {
      const alice = await connected(socket(client, authOpts(client, 'alice')));
      const carol = await connected(socket(client, authOpts(client, 'carol')));
      const a = recorder(alice, 'ticket');
      const c = recorder(carol, 'ticket');
      for (const s of [alice, carol]) assert.equal((await ack(s, 'joinChatBox', '42')).ok, true);
      await publish(1, ['chatBox:42'], 'ticket', { tenant: 1 });
      await publish(1, ['company'], 'ticket', { tenant: 1 });
      await publish(2, ['chatBox:42'], 'ticket', { tenant: 2 });
      await a.until(2);
      await c.until(1);
      assert.deepEqual(a.payloads().map((p) => p.tenant), [1, 1]);
      assert.deepEqual(c.payloads().map((p) => p.tenant), [2]);
      alice.close();
      carol.close();
    });

    it('filters events by queue inside a room', async () => {
      const alice = await connected(socket(client, authOpts(client, 'alice'))); // queue 1
      const bob = await connected(socket(client, authOpts(client, 'bob'))); // queue 2
      const a = recorder(alice, 'ticket');
      const b = recorder(bob, 'ticket');
      for (const s of [alice, bob]) assert.equal((await ack(s, 'joinTickets', 'pending')).ok, true);
      await publish(1, ['tickets:pending'], 'ticket', { queue: 1 }, 1);
      await publish(1, ['tickets:pending'], 'ticket', { queue: 2 }, 2);
      await a.until(1);
      await b.until(1);
      assert.deepEqual(a.payloads().map((p) => p.queue), [1]);
      assert.deepEqual(b.payloads().map((p) => p.queue), [2]);
      alice.close();
      bob.close();
    });

    it('reconnects with lastSeq and is replayed what it missed', async () => {
      const first = socket(client, authOpts(client, 'alice'));
      const seen = recorder(first, 'appMessage');
      await connected(first);
      assert.equal((await ack(first, 'joinChatBox', '44')).ok, true);
      await publish(1, ['chatBox:44'], 'appMessage', { n: 0 });
      const [[{ seq: lastSeq }]] = await seen.until(1);
      first.close();

      const missed = [];
      for (const n of [1, 2, 3]) missed.push(await publish(1, ['chatBox:44'], 'appMessage', { n }));
      await publish(1, ['chatBox:45'], 'appMessage', { other: true });

      const again = socket(client, authOpts(client, 'alice', { lastSeq }));
      const replay = recorder(again, 'appMessage');
      await connected(again);
      const join = await ack(again, 'joinChatBox', '44');
      // The replay comes before the ack.
      assert.deepEqual(replay.payloads().map((p) => p.n), [1, 2, 3]);
      assert.deepEqual(replay.payloads().map((p) => p.seq), missed);
      assert.equal(join.seq, missed[2] + 1);
      again.close();
    });

    it('gets resync when the backlog cannot cover its lastSeq', async () => {
      const s = socket(client, authOpts(client, 'alice', { lastSeq: 1 }));
      const resync = recorder(s, 'resync'); // it comes right after CONNECT
      await connected(s);
      const [[r]] = await resync.until(1);
      assert.equal(r.reason, 'backlog_gap');
      assert.equal(typeof r.seq, 'number');
      // No replay after a resync; joins are acknowledged as usual.
      assert.equal((await ack(s, 'joinChatBox', '46')).ok, true);
      assert.equal(resync.seen.length, 1);
      s.close();
    });

    if (client.version === 4) {
      it('recovers through the v4.6+ pid/offset after a transport drop, re-joining', async () => {
        const s = socket(client, {
          auth: { token: 'alice' },
          reconnection: true,
          reconnectionDelay: 1000,
          randomizationFactor: 0,
        });
        const messages = recorder(s, 'appMessage');
        const recovered = [];
        const joins = [];
        let joined;
        s.on('connect', () => {
          recovered.push(s.recovered);
          joins.push(ack(s, 'joinChatBox', '47')); // the app re-joins on every connect
          if (joined) joined();
        });
        let published;
        const reasons = [];
        s.on('disconnect', (reason) => {
          reasons.push(reason);
          if (reason !== 'transport close') return;
          // Publish while the client is away (it waits reconnectionDelay first).
          published = (async () => [await publish(1, ['chatBox:47'], 'appMessage', { n: 1 }),
            await publish(1, ['chatBox:47'], 'appMessage', { n: 2 })])();
        });
        await connected(s);
        assert.equal((await joins[0]).ok, true);
        await publish(1, ['chatBox:47'], 'appMessage', { n: 0 });
        await messages.until(1);
        const again = withTimeout(new Promise((resolve) => { joined = resolve; }), 'reconnect');
        await control('/drop', { tenant: 1, user: 1 });
        await again;
        const missed = await published;
        const join = await joins[1];
        // The client sent back the offset of event n=0 (no lastSeq of ours): the missed
        // events were replayed before the join's ack.
        assert.deepEqual(messages.payloads().map((p) => p.n), [0, 1, 2]);
        assert.deepEqual(messages.payloads().slice(1).map((p) => p.seq), missed);
        assert.equal(join.seq, missed[1]);
        assert.deepEqual(recovered, [false, false]); // rooms are not restored: always re-join
        assert.deepEqual(reasons, ['transport close']); // a drop, not a server DISCONNECT
        s.close();
      });
    }
  });
}
