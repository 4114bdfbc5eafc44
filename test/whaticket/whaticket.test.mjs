// Contract tests of the unmodified whaticket-community web client's socket wire.
//
// whaticket's client (React 16) talks to its back end through socket.io-client 3,
// opened as its services/socket-io.js does: transports ["websocket", "polling"], the
// access token in the query, and joinTickets / joinChatBox / joinNotification emitted
// without acknowledgement. These tests drive a real `atende serve` (SQLite, demo
// tenant, a random port) with that client, pinning what whaticket's components
// expect of each event. Run by `make test-whaticket`; ATENDE_BIN names the binary
// (default ../../bin/atende).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { io } from 'socket.io-client';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = process.env.ATENDE_BIN || resolve(here, '../../bin/atende');
// Generous: the machine running the suite may be loaded.
const DEADLINE = 20000;

let server;
let dataDir;
let base;
const sockets = new Set();

function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

async function waitUntil(what, cond) {
  const end = Date.now() + 60000;
  for (;;) {
    try {
      if (await cond()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'atende-whaticket-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  let log = '';
  server = spawn(BIN, ['serve', '--seed-demo', '--http-addr', `127.0.0.1:${port}`, '--data-dir', dataDir, '--log-level', 'warn'], {
    env: { ...process.env, ATENDE_ENV: 'development', DATABASE_URL: '', REDIS_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.on('data', (b) => (log += b));
  server.stderr.on('data', (b) => (log += b));
  server.once('exit', (code) => {
    if (code) process.stderr.write(`atende serve exited ${code}:\n${log}\n`);
  });
  await waitUntil('atende serve ready', async () => (await fetch(`${base}/readyz`)).ok);
});

after(async () => {
  for (const s of sockets) s.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// api calls the REST API as whaticket's services/api.js does (JSON, bearer token).
async function api(token, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function login(email, password) {
  const r = await api(null, 'POST', '/auth/login', { email, password });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { token: r.body.token, user: r.body.user };
}

// whaticketSocket opens a socket the way whaticket's services/socket-io.js does and
// records every event it receives.
async function whaticketSocket(token) {
  const s = io(base, { transports: ['websocket', 'polling'], query: { token }, reconnection: false, forceNew: true });
  sockets.add(s);
  s.events = [];
  s.onAny((name, payload) => s.events.push({ name, payload }));
  await new Promise((ok, fail) => {
    const t = setTimeout(() => fail(new Error('connect timed out')), DEADLINE);
    s.once('connect', () => (clearTimeout(t), ok()));
    s.once('connect_error', (e) => (clearTimeout(t), fail(e)));
  });
  return s;
}

// joined emits a whaticket join (no ack, as whaticket) and waits until the server
// handled it: a second, acknowledged emit of the same join answers after the first.
async function joined(s, name, ...args) {
  s.emit(name, ...args);
  await new Promise((ok, fail) => {
    const t = setTimeout(() => fail(new Error(`${name} not acknowledged`)), DEADLINE);
    s.emit(name, ...args, (ack) => (clearTimeout(t), ack && ack.ok ? ok() : fail(new Error(`${name}: ${JSON.stringify(ack)}`))));
  });
}

function waitEvent(s, what, match) {
  return new Promise((ok, fail) => {
    const check = () => s.events.find((e) => match(e.name, e.payload));
    const found = check();
    if (found) return ok(found.payload);
    const t = setInterval(() => {
      const f = check();
      if (f) {
        clearInterval(t);
        clearTimeout(d);
        ok(f.payload);
      }
    }, 20);
    const d = setTimeout(() => {
      clearInterval(t);
      fail(new Error(`timed out waiting for ${what}; got ${JSON.stringify(s.events.map((e) => [e.name, e.payload.action]))}`));
    }, DEADLINE);
  });
}

let contactSeq = 0;
async function pendingTicket(admin, queueId) {
  contactSeq++;
  const c = await api(admin.token, 'POST', '/contacts', {
    name: `Cliente Whaticket ${contactSeq}`,
    number: `55659999${String(10000 + contactSeq)}`,
    email: '',
  });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  const t = await api(admin.token, 'POST', '/tickets', { contactId: c.body.id, status: 'pending', ...(queueId ? { queueId } : {}) });
  assert.equal(t.status, 201, JSON.stringify(t.body));
  return t.body;
}

test('whaticket TicketsList: accepting a ticket deletes it from the pending room and updates the open room', async () => {
  const admin = await login('admin@atende.local', 'admin123');
  const pendingList = await whaticketSocket(admin.token);
  const openList = await whaticketSocket(admin.token);
  await joined(pendingList, 'joinTickets', 'pending');
  await joined(openList, 'joinTickets', 'open');
  const ticket = await pendingTicket(admin);

  // whaticket's accept button: PUT /tickets/{id} {status: "open", userId}.
  const r = await api(admin.token, 'PUT', `/tickets/${ticket.id}`, { status: 'open', userId: admin.user.id });
  assert.equal(r.status, 200, JSON.stringify(r.body));

  const del = await waitEvent(pendingList, 'delete in the pending room', (n, p) => n === 'ticket' && p.action === 'delete' && p.ticketId === ticket.id);
  assert.equal(del.ticketId, ticket.id);
  const upd = await waitEvent(openList, 'update in the open room', (n, p) => n === 'ticket' && p.action === 'update' && p.ticket?.id === ticket.id && p.ticket.status === 'open');
  assert.equal(upd.ticket.userId, admin.user.id);
  // What whaticket's list reads of a ticket.
  assert.equal(typeof upd.ticket.contact.name, 'string');
  assert.ok(!Number.isNaN(Date.parse(upd.ticket.contact.createdAt)), 'contact.createdAt is a date');
  assert.ok(upd.ticket.whatsapp && typeof upd.ticket.whatsapp.name === 'string', 'ticket.whatsapp.name');

  // The pending list is never told to add the accepted ticket back, and the open
  // list never removes it.
  assert.ok(!pendingList.events.some((e) => e.name === 'ticket' && e.payload.action === 'update' && e.payload.ticket?.id === ticket.id && e.payload.ticket.status === 'open'));
  assert.ok(!openList.events.some((e) => e.name === 'ticket' && e.payload.action === 'delete' && e.payload.ticketId === ticket.id));
});

test('whaticket TicketsList: a ticket handed to a colleague is deleted, then updated, in the same room', async () => {
  const admin = await login('admin@atende.local', 'admin123');
  const openList = await whaticketSocket(admin.token);
  await joined(openList, 'joinTickets', 'open');
  const ticket = await pendingTicket(admin);
  assert.equal((await api(admin.token, 'PUT', `/tickets/${ticket.id}`, { status: 'open', userId: admin.user.id })).status, 200);
  await waitEvent(openList, 'accepted', (n, p) => n === 'ticket' && p.action === 'update' && p.ticket?.id === ticket.id);
  openList.events.length = 0;

  const users = await api(admin.token, 'GET', '/users/');
  const carla = users.body.users.find((u) => u.email === 'carla@atende.local');
  // whaticket's TransferTicketModal: {userId, queueId?}.
  const r = await api(admin.token, 'PUT', `/tickets/${ticket.id}`, { userId: carla.id, status: 'open' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await waitEvent(openList, 'update to carla', (n, p) => n === 'ticket' && p.action === 'update' && p.ticket?.userId === carla.id);
  const actions = openList.events.filter((e) => e.name === 'ticket' && (e.payload.ticketId === ticket.id || e.payload.ticket?.id === ticket.id)).map((e) => e.payload.action);
  assert.deepEqual(actions, ['delete', 'update'], 'a list that filters by userId drops the ticket, another takes it');
});

test('whaticket MessagesList: appMessage update carries the whole message', async () => {
  const admin = await login('admin@atende.local', 'admin123');
  const ticket = await pendingTicket(admin);
  assert.equal((await api(admin.token, 'PUT', `/tickets/${ticket.id}`, { status: 'open', userId: admin.user.id })).status, 200);
  const chat = await whaticketSocket(admin.token);
  await joined(chat, 'joinChatBox', String(ticket.id));

  // whaticket's MessageInput: read is a number.
  const sent = await api(admin.token, 'POST', `/messages/${ticket.id}`, { read: 1, fromMe: true, mediaUrl: '', body: 'Olá, tudo bem?', quotedMsg: null });
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  await waitEvent(chat, 'appMessage create', (n, p) => n === 'appMessage' && p.action === 'create' && p.message.id === sent.body.id);

  // A deletion is an appMessage update; whaticket's MessagesList replaces the message
  // with the event's. (The ticket id in the query spares the message lookup, which
  // is not what this test is about.)
  const del = await api(admin.token, 'DELETE', `/messages/${sent.body.id}?ticketId=${ticket.id}`);
  assert.ok(del.status === 200 || del.status === 204, JSON.stringify(del.body));
  const upd = await waitEvent(chat, 'appMessage update (deleted)', (n, p) => n === 'appMessage' && p.action === 'update' && p.message.id === sent.body.id && p.message.isDeleted);
  assert.equal(upd.message.body, 'Olá, tudo bem?');
  assert.equal(upd.message.fromMe, true);
  assert.equal(upd.message.ticketId, ticket.id);
  assert.ok(!Number.isNaN(Date.parse(upd.message.createdAt)), 'createdAt is a date');
});

test('whaticket ConnectionsPage: a created connection arrives as whatsapp update', async () => {
  const admin = await login('admin@atende.local', 'admin123');
  const page = await whaticketSocket(admin.token);
  const r = await api(admin.token, 'POST', '/whatsapp', { name: 'Contrato whaticket', channel: 'socket', isDefault: false });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const ev = await waitEvent(page, 'whatsapp update', (n, p) => n === 'whatsapp' && p.whatsapp?.id === r.body.id);
  assert.equal(ev.action, 'update');
  assert.equal(ev.whatsapp.name, 'Contrato whaticket');
});

test('whaticket NotificationsPopOver: an attendant joins notification and hears only their queues', async () => {
  const admin = await login('admin@atende.local', 'admin123');
  const ana = await login('ana@atende.local', 'atende123'); // Atendimento, Financeiro
  const bruno = await login('bruno@atende.local', 'atende123'); // Suporte
  const anaBell = await whaticketSocket(ana.token);
  const brunoBell = await whaticketSocket(bruno.token);
  await joined(anaBell, 'joinNotification');
  await joined(brunoBell, 'joinNotification');

  const queues = (await api(admin.token, 'GET', '/queue')).body;
  const atendimento = queues.find((q) => q.name === 'Atendimento');
  const ticket = await pendingTicket(admin, atendimento.id);
  await waitEvent(anaBell, "the new ticket on ana's bell", (n, p) => n === 'ticket' && p.action === 'update' && p.ticket?.id === ticket.id);
  // Whatever bruno's socket was sent with ana's frame precedes the answer to his next join.
  await joined(brunoBell, 'joinNotification');
  assert.ok(!brunoBell.events.some((e) => e.payload?.ticket?.id === ticket.id), 'bruno heard a ticket of another queue');
});
